"""Shared fixtures."""

import pytest

from tt_env.game.melds import _kernel, clear_cache


@pytest.fixture(params=["compiled", "python"])
def solver_path(request):
    """Run a test with the compiled kernel (when it is built) and with the Python
    solver alone; the solver's tables are emptied around each run so nothing leaks between."""
    _kernel.set_enabled(request.param == "compiled")
    clear_cache(tables=True)
    yield request.param
    _kernel.set_enabled(True)
    clear_cache(tables=True)
