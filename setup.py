"""The compiled kernels, built by ``pip install`` (everything else is in pyproject.toml).

Six C extension modules, one per layer that has a compiled kernel; each includes the plain-C
kernels of the layers below it (headers only, from ``tt_env/``), so that it calls them directly:

- ``tt_env.game.melds._csolver``: the meld solver (``game/melds/solver.h``, which includes its
  parts, ``game/melds/solver/*.h``);
- ``tt_env.game._ccore``: the game engine (``game/core/game.h``, ``observe.h``);
- ``tt_env.valuation._crule``: what a seat knows (``valuation/knowledge.h``) and the
  ``counting`` rule (``valuation/rule.h``);
- ``tt_env.learned._cfeatures``: the learned agents' card features;
- ``tt_env.agents._csearch``: the search agent's deals and rollouts;
- ``tt_env.vector._cbatch``: self-play tables stepped in one call (``vector/table.h``).

They are optional: on a machine without a C compiler the build warns, the install goes on, and
the package plays on its exact pure-Python path (slower), saying so once with how to get the
fast one (``tt_env.game.melds.kernel_status()``); only the compiled batch needs its module.

With ``TT_ENV_STRICT_C=1`` in the environment (CI sets it) the build is strict instead: gcc's and
clang's ``-Wextra`` on top of ``-Wall``, every warning an error, and a kernel that does not build
fails the install rather than leaving the Python path.
"""

from __future__ import annotations

import os
from glob import glob
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the parts of the solver that solver.h includes (paths from the project's folder, as below)
SOLVER_PARTS = sorted(glob("tt_env/game/melds/solver/*.h", root_dir=Path(__file__).parent))
HEADERS = [
    "tt_env/util/pyargs.h",
    "tt_env/util/threads.h",
    "tt_env/util/rng.h",
    "tt_env/game/melds/solver.h",
    *SOLVER_PARTS,
    "tt_env/game/melds/_csolver.h",
    "tt_env/valuation/knowledge.h",
    "tt_env/valuation/_knowledge.h",
    "tt_env/valuation/rule.h",
    "tt_env/valuation/decisions.h",
    "tt_env/valuation/_crule.h",
    "tt_env/agents/rollout.h",
    "tt_env/agents/search.h",
    "tt_env/learned/card_features.h",
    "tt_env/util/rng.h",
    "tt_env/game/core/game.h",
    "tt_env/game/core/ids.h",
    "tt_env/game/core/layout.h",
    "tt_env/game/core/kernels.h",
    "tt_env/game/core/observe.h",
    "tt_env/game/core/check.h",
    "tt_env/game/_layout.h",
    "tt_env/game/_service.h",
    "tt_env/game/_state.h",
    "tt_env/vector/seats.h",
    "tt_env/vector/table.h",
]
# -O3: the searches are integer loops that the compiler unrolls and vectorises; no -march, so
# that a wheel built here runs on any CPU of its architecture.
UNIX_FLAGS = ["-O3", "-std=c11", "-Wall"]
# A user's build only warns (a newer compiler's new warning must not break an install); CI's is
# strict, so that the sources stay free of warnings.
STRICT = os.environ.get("TT_ENV_STRICT_C", "").strip() not in ("", "0")
STRICT_FLAGS = ["-Wextra", "-Werror"]


def kernel(name: str, source: str) -> Extension:
    return Extension(
        name,
        sources=[source],
        include_dirs=["tt_env"],
        depends=HEADERS,
        optional=not STRICT,  # no compiler: a warning, and the pure-Python path
    )


class BuildKernels(build_ext):
    """build_ext with the flags of the compiler at hand (MSVC takes none of gcc's)."""

    def build_extensions(self) -> None:
        if self.compiler.compiler_type != "msvc":
            for ext in self.extensions:
                ext.extra_compile_args = UNIX_FLAGS + (STRICT_FLAGS if STRICT else [])
                ext.extra_link_args = ["-pthread"]  # the batch steps its tables on threads
        super().build_extensions()


setup(
    ext_modules=[
        kernel("tt_env.game.melds._csolver", "tt_env/game/melds/_csolver.c"),
        kernel("tt_env.game._ccore", "tt_env/game/_ccore.c"),
        kernel("tt_env.vector._cbatch", "tt_env/vector/_cbatch.c"),
        kernel("tt_env.valuation._crule", "tt_env/valuation/_crule.c"),
        kernel("tt_env.learned._cfeatures", "tt_env/learned/_cfeatures.c"),
        kernel("tt_env.agents._csearch", "tt_env/agents/_csearch.c"),
    ],
    cmdclass={"build_ext": BuildKernels},
)
