"""Train a Three Thirteen agent: a thin script over ``tt-train`` (:mod:`tt_env.train`).

    python training/train.py --config training/config/ppo_2p_standard.toml
    python training/train.py --resume runs/<run name>

Every setting, its help and its default: ``python training/train.py --help``.
"""

import sys

from tt_env.train import main

if __name__ == "__main__":
    sys.exit(main())
