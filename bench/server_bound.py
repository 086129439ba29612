#!/usr/bin/env python3
"""Three models × three tasks on three simulated servers, against the server-bound limit; see
docs/benchmarks.md ("Server-bound"). The code is `thinkeval_bench.serverbound`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval_bench.serverbound_cli import main

if __name__ == "__main__":
    sys.exit(main())
