"""Plumbing that the tools share: command-line helpers (:mod:`~tt_env.util.cli`), output files
written atomically (:mod:`~tt_env.util.files`), the process pool that leaves Ctrl-C to the main
process (:mod:`~tt_env.util.workers`), Ray sessions (:mod:`~tt_env.util.ray`) and numba's cache
of the compiled kernels (:mod:`~tt_env.util.numba_cache`). Its modules are imported one by one;
this package imports nothing.
"""
