#!/usr/bin/env python3
"""Re-ask against continue for the adaptive retry, on the continuous-batching simulator; see
docs/benchmarks.md ("Retry: re-ask against continue").

    python bench/continue_bench.py            # both shapes, printed and put in bench/RESULTS.md
    python bench/continue_bench.py --limit 100  # the first 100 questions, nothing written

Like run_bench.py, this script puts its own folder first on `sys.path` to find the
`thinkeval_bench` package beside it.
"""

import argparse
import datetime as dt
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval_bench import BENCH_DIR
from thinkeval_bench.continuation import MODES, SHAPES, measure, render
from thinkeval_bench.measure import set_subreaper, stop_all_on_signals
from thinkeval_bench.results import this_machine
from thinkeval_bench.runenv import take_snapshot, thinkeval_version
from thinkeval_bench.sections import put_section


def main() -> int:
    parser = argparse.ArgumentParser(prog="continue_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, help="datasets (default: auto)")
    parser.add_argument("--work", type=Path, help="scratch folder (default: bench/out/...)")
    parser.add_argument("--limit", type=int, help="questions per task (then nothing is written)")
    parser.add_argument("--seed", type=int, default=20240601, help="the simulator's seed")
    parser.add_argument("--slots", type=int, default=32, help="simulator slots = concurrency")
    parser.add_argument("--per-token-s", type=float, default=0.0002, help="decode s per token")
    parser.add_argument(
        "--prefill-token-s", type=float, default=0.000005, help="prefill s per token"
    )
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "RESULTS.md")
    args = parser.parse_args()
    from thinkeval.tasks import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("error: no data dir: pass --data-dir or set THINKEVAL_DATA_DIR")
    now = dt.datetime.now(dt.UTC)
    work = args.work or BENCH_DIR / "out" / f"continue-{now:%Y%m%dT%H%M%SZ}"
    work.mkdir(parents=True, exist_ok=True)
    set_subreaper()
    stop_all_on_signals()
    take_snapshot(work / "snapshot")  # every simulator and run imports this copy
    results = [
        measure(
            shape,
            mode,
            work,
            data_dir,
            seed=args.seed,
            slots=args.slots,
            per_token_s=args.per_token_s,
            prefill_token_s=args.prefill_token_s,
            limit=args.limit,
        )
        for shape in SHAPES
        for mode in MODES
    ]
    version, machine = thinkeval_version(), this_machine()
    settings = (
        f"Simulator `--max-num-seqs {args.slots} --per-token-s {args.per_token_s:g} "
        f"--prefill-token-s {args.prefill_token_s:g}`, seed {args.seed}, concurrency "
        f"{args.slots}; GSM8K `--task-shape gsm8k:0.17:300-1800` at 2048 → 8192, MATH-500 "
        "`--task-shape math500:0.3:250-1900 --long-tokens 2150-3900` (math lengths × 8: "
        "2000-15000 and 17200-31200 tokens) at 16384 → 32768. "
        f"thinkeval {version.get('thinkeval')} commit {version.get('commit', '?')}; "
        f"{machine.description}."
    )
    command = shlex.join(["python", "bench/continue_bench.py", *sys.argv[1:]])
    section = render(results, command=command, when=f"{now:%Y-%m-%d %H:%M} UTC", settings=settings)
    print(section)
    if args.limit is not None:
        return 0
    put_section(args.out, section, "continue")
    print(f"wrote the continue section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
