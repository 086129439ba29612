#!/usr/bin/env python3
"""Compare thinkeval's working tree with an earlier revision on the same workload.

Usage (from the repository root, inside thinkeval's virtualenv)::

    python bench/compare_revisions.py --base f7da732
    python bench/compare_revisions.py --base main --rounds 5 --requests 2000

See `thinkeval_bench/revisions.py` for what is measured.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval_bench.measure import set_subreaper, stop_all_on_signals
from thinkeval_bench.revisions import compare, render
from thinkeval_bench.workload import gsm8k_source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the revision to compare with (git rev)")
    parser.add_argument(
        "--new", default="WORKTREE", help="the revision to measure (default: the working tree)"
    )
    parser.add_argument("--requests", type=int, default=1000, help="GSM8K rows per run")
    parser.add_argument("--memory-rows", type=int, default=100_000, help="rows of the memory run")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--seed", type=int, default=20240601, help="the simulator's seed")
    parser.add_argument("--data-dir", help="folder holding gsm8k/test.jsonl (default: auto)")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    set_subreaper()
    stop_all_on_signals()
    with tempfile.TemporaryDirectory(prefix="thinkeval-compare-") as tmp:
        revisions = compare(
            args.base,
            new_revision=args.new,
            work=Path(tmp),
            data_source=gsm8k_source(args.data_dir),
            requests=args.requests,
            memory_rows=args.memory_rows,
            rounds=args.rounds,
            seed=args.seed,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
    table = render(revisions, args.requests, args.memory_rows, args.rounds)
    print(table)
    if args.out is not None:
        args.out.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
