"""``python -m tt_env.arena`` = ``tt-arena``."""

import sys

from tt_env.arena.cli import main

if __name__ == "__main__":
    sys.exit(main())
