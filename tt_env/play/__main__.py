"""``python -m tt_env.play`` = ``tt-play``."""

import sys

from tt_env.play.terminal import main

if __name__ == "__main__":
    sys.exit(main())
