#!/usr/bin/env python3
"""What math scoring costs: per reply, and per request of a run; see docs/benchmarks.md.

    python bench/math_bench.py                 # both parts, printed and put in bench/RESULTS.md
    python bench/math_bench.py --scoring-only  # only the per-reply scoring times

Like run_bench.py, this script puts its own folder first on `sys.path` to find the
`thinkeval_bench` package beside it. Linux only (/proc).
"""

import argparse
import datetime as dt
import shlex
import sys
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval_bench import BENCH_DIR
from thinkeval_bench.maths import drive, render, results_section, runs_section, scoring_section
from thinkeval_bench.measure import set_subreaper, stop_all_on_signals
from thinkeval_bench.results import this_machine
from thinkeval_bench.runenv import thinkeval_version
from thinkeval_bench.sections import put_section


def main() -> int:
    parser = argparse.ArgumentParser(prog="math_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, help="datasets (default: auto)")
    parser.add_argument("--work", type=Path, help="scratch folder (default: bench/out/math-...)")
    parser.add_argument("--seed", type=int, default=20240601, help="the simulator's seed")
    parser.add_argument("--scoring-only", action="store_true", help="skip the runs")
    parser.add_argument(
        "--out",
        type=Path,
        default=BENCH_DIR / "RESULTS.md",
        help="the page whose math section a full invocation replaces (default: bench/RESULTS.md)",
    )
    parser.add_argument("--drive", nargs=2, metavar=("CONFIG", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        drive(*args.drive)
        return 0
    from thinkeval.tasks import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("error: no data dir: pass --data-dir or set THINKEVAL_DATA_DIR")
    now = dt.datetime.now(dt.UTC)
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    work = args.work or BENCH_DIR / "out" / f"math-{stamp}"
    work.mkdir(parents=True, exist_ok=True)
    set_subreaper()
    stop_all_on_signals()
    scoring = scoring_section(data_dir)
    if args.scoring_only:
        print(render(scoring, []).split("\n\nruns")[0])
        return 0
    runs = runs_section(data_dir, work, args.seed)
    print(render(scoring, runs))
    version, machine = thinkeval_version(), this_machine()
    settings = (
        f"thinkeval {version.get('thinkeval')} commit {version.get('commit', '?')}, "
        f"Math-Verify {_installed('math-verify')}; {machine.description}."
    )
    command = shlex.join(["python", "bench/math_bench.py", *sys.argv[1:]])
    section = results_section(
        scoring,
        runs,
        command=command,
        when=f"{now:%Y-%m-%d %H:%M} UTC",
        settings=settings,
    )
    put_section(args.out, section, "math")
    print(f"wrote the math section of {args.out}", file=sys.stderr)
    return 0


def _installed(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


if __name__ == "__main__":
    sys.exit(main())
