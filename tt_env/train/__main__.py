"""``python -m tt_env.train`` = ``tt-train``."""

import sys

from tt_env.train.cli import main

if __name__ == "__main__":
    sys.exit(main())
