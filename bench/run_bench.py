#!/usr/bin/env python3
"""Drive one GSM8K workload through thinkeval and its peer harnesses; see docs/benchmarks.md.

The entry point only: the benchmark is the `thinkeval_bench` package beside this file, which is
not installed, so this script puts its own folder first on `sys.path` (Python does the same for
`python bench/run_bench.py`, but not under `-P` or PYTHONSAFEPATH).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval_bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
