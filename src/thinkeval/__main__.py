"""`python -m thinkeval` is the `thinkeval` command."""

import sys

from thinkeval.cli import main

# Guarded: worker processes (scoring.pool) import the main module again.
if __name__ == "__main__":
    sys.exit(main())
