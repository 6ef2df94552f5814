"""``python -m tt_env.replay`` = ``tt-replay``."""

import sys

from tt_env.replay.core import main

if __name__ == "__main__":
    sys.exit(main())
