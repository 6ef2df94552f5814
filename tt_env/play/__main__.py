"""``python -m tt_env.play`` = ``tt-play``."""

import sys

from tt_env.play import main

if __name__ == "__main__":
    sys.exit(main())
