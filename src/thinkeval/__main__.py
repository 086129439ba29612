"""`python -m thinkeval` is the `thinkeval` command."""

import sys

from thinkeval.cli import main

sys.exit(main())
