#!/usr/bin/env python3
"""What math scoring costs: per reply, and per request of a run; see docs/benchmarks.md.

    python bench/math_bench.py                 # both parts, figures printed side by side
    python bench/math_bench.py --scoring-only  # only the per-reply scoring times

Like run_bench.py, this script puts its own folder first on `sys.path` to find the
`thinkeval_bench` package beside it. Linux only (/proc).
"""

import argparse
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval_bench import BENCH_DIR
from thinkeval_bench.maths import drive, render, runs_section, scoring_section
from thinkeval_bench.measure import set_subreaper, stop_all_on_signals


def main() -> int:
    parser = argparse.ArgumentParser(prog="math_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, help="datasets (default: auto)")
    parser.add_argument("--work", type=Path, help="scratch folder (default: bench/out/math-...)")
    parser.add_argument("--seed", type=int, default=20240601, help="the simulator's seed")
    parser.add_argument("--scoring-only", action="store_true", help="skip the runs")
    parser.add_argument("--drive", nargs=2, metavar=("CONFIG", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        drive(*args.drive)
        return 0
    from thinkeval.tasks import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("error: no data dir: pass --data-dir or set THINKEVAL_DATA_DIR")
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    work = args.work or BENCH_DIR / "out" / f"math-{stamp}"
    work.mkdir(parents=True, exist_ok=True)
    set_subreaper()
    stop_all_on_signals()
    scoring = scoring_section(data_dir)
    runs = [] if args.scoring_only else runs_section(data_dir, work, args.seed)
    print(render(scoring, runs) if runs else render(scoring, []).split("\n\nruns")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
