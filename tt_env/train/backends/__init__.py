"""The backends of ``tt-train``, each a :class:`~tt_env.train.run.TrainingRun` with the PPO of
one library: :mod:`~tt_env.train.backends.sb3` (MaskablePPO of sb3-contrib, the default) and
:mod:`~tt_env.train.backends.rllib` (RLlib's PPO on Ray, extra ``ray``). Neither is imported
here: each needs its own packages."""
