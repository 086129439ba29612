"""`python -m thinkeval` is the `thinkeval` command."""

import sys

from .cli import main

sys.exit(main())
