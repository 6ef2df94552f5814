"""Plumbing below every other layer: output files written atomically
(:mod:`~tt_env.util.files`), the process pool that leaves Ctrl-C to the main process
(:mod:`~tt_env.util.workers`), Ray sessions (:mod:`~tt_env.util.ray`) and the argument parser
of the commands (:mod:`~tt_env.util.args`). It imports no other
part of tt_env; its modules are imported one by one, and this package imports nothing.
"""
