"""Plot a run's learning curve and evaluation scores as a PNG (``tt-train plot``).

python training/plot.py runs/<run name> [-o curve.png]
"""

import sys

from tt_env.train import main

if __name__ == "__main__":
    sys.exit(main(["plot", *sys.argv[1:]]))
