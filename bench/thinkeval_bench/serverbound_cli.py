"""`bench/server_bound.py`: run the server-bound scenario and put its section in RESULTS.md.

The section sits between two marker comments, so running this again replaces only it, and
`run_bench.py` keeps it when it renders the rest of the page (`keep_sections`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from thinkeval_bench import BENCH_DIR, REPO
from thinkeval_bench.measure import set_subreaper, stop_all, stop_all_on_signals
from thinkeval_bench.results import this_machine
from thinkeval_bench.runenv import take_snapshot, thinkeval_version
from thinkeval_bench.sections import MARKERS, put_section
from thinkeval_bench.serverbound import (
    CLIENT_LATENCY_S,
    MODELS,
    TASK_SHAPES,
    ClientResult,
    ModeResult,
    cpu_per_request_ms,
    run_client,
    run_mode,
)

START, END = MARKERS["server-bound"]
TARGET = 1.1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="server_bound.py",
        description="Three models × three tasks on three simulated servers: wall time against "
        "the server-bound limit, all models at once and model by model; then the client's CPU "
        "per request and memory with three models × 64 in flight.",
    )
    parser.add_argument("--slots", type=int, default=32, help="max_num_seqs per server (32)")
    parser.add_argument(
        "--per-token-s",
        type=float,
        default=0.00045,
        help="seconds per generated token: sets the run's length (0.00045: ~30 s at once)",
    )
    parser.add_argument("--limit", type=int, default=400, help="BoolQ and GSM8K rows (400)")
    parser.add_argument(
        "--modes",
        default="together,model-by-model",
        help="which ways to run the scenario (together,model-by-model); '' skips it",
    )
    parser.add_argument("--data-dir", help="datasets (default: ../shared/datasets)")
    parser.add_argument(
        "--client-rows",
        default="1000,5000",
        help="rows per model of the two zero-latency client runs (1000,5000); '' skips them",
    )
    parser.add_argument("--out", default=str(BENCH_DIR / "RESULTS.md"), help="page to update")
    parser.add_argument("--work", default=str(BENCH_DIR / "out"), help="scratch folder")
    parser.add_argument("--timeout-s", type=float, default=900.0, help="limit per command")
    return parser


def _data_dir(explicit: str | None) -> Path:
    for candidate in (
        explicit,
        os.environ.get("THINKEVAL_DATA_DIR"),
        str(REPO.parent / "shared" / "datasets"),
    ):
        if candidate and (Path(candidate) / "ceval").is_dir():
            return Path(candidate).resolve()
    raise SystemExit("error: datasets not found: pass --data-dir or set THINKEVAL_DATA_DIR")


def render_section(
    modes: list[ModeResult],
    clients: list[ClientResult],
    *,
    command: str,
    when: str,
    settings: str,
) -> str:
    """The Markdown section, between its markers."""
    lines = [
        START,
        "## Server-bound: three models × three tasks on three servers",
        "",
        f"Measured {when} with `{command}`. {settings}",
        "",
        "Limit = the busiest server's service time / its slots + the longest fixed → retry "
        f"chain (target: wall / limit ≤ {TARGET}). Wall / busiest compares with the busiest "
        "server's service time / its slots alone, which no run can beat.",
        "",
        "| mode | requests | wall s | busiest server s | longest chain s | limit s "
        "| wall / limit | wall / busiest | CPU s | peak RSS MiB | exit |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for m in modes:
        codes = ",".join("-" if c is None else str(c) for c in m.exit_codes)
        lines.append(
            f"| {m.mode} | {m.requests} | {m.wall_s:.1f} | {m.busiest_s:.1f} | {m.chain_s:.1f} "
            f"| {m.limit_s:.1f} | **{m.ratio:.2f}** | {m.wall_s / m.busiest_s:.2f} "
            f"| {m.cpu_s:.1f} | {m.peak_rss_mb:.0f} "
            f"| {codes} |"
        )
    together = next((m for m in modes if m.mode == "together"), None)
    if together is not None:
        met = "met" if together.ratio <= TARGET else "NOT met"
        lines += [
            "",
            f"Target wall / limit ≤ {TARGET} for all models at once: **{met}** "
            f"({together.ratio:.2f}).",
        ]
    if len(clients) == 2:
        small, large = clients
        per_request = cpu_per_request_ms(small, large)
        growth = large.peak_rss_mb / small.peak_rss_mb - 1 if small.peak_rss_mb else 0.0
        lines += [
            "",
            f"Client alone: three models × 64 in flight, {CLIENT_LATENCY_S:g} s per reply, "
            "synthetic GSM8K-format rows, nothing cut off:",
            "",
            "| rows per model | requests | max in flight per server | wall s | CPU s "
            "| peak RSS MiB |",
            "| ---: | ---: | ---: | ---: | ---: | ---: |",
            *(
                f"| {c.rows} | {c.requests} | {c.max_in_flight} | {c.wall_s:.1f} | {c.cpu_s:.2f} "
                f"| {c.peak_rss_mb:.0f} |"
                for c in clients
            ),
            "",
            f"CPU per request after start-up: **{per_request:.2f} ms** (target ≤ 1 ms: "
            f"{'met' if per_request <= 1.0 else 'NOT met'}); peak RSS {growth:+.0%} from "
            f"{small.requests} to {large.requests} requests (target within 10 %: "
            f"{'met' if abs(growth) <= 0.10 else 'NOT met'}).",
        ]
    lines.append(END)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run both modes and the client runs; print and save the results; update the page."""
    args = _parser().parse_args(argv)
    set_subreaper()
    stop_all_on_signals()
    data_dir = _data_dir(args.data_dir)
    stamp = dt.datetime.now(dt.UTC)
    work = Path(args.work) / f"server-bound-{stamp:%Y%m%d-%H%M%S}"
    work.mkdir(parents=True)
    take_snapshot(work / "snapshot")
    limited = [{"name": name, "limit": args.limit} for name in ("boolq", "gsm8k")]
    tasks = ["ceval", *limited]
    modes: list[ModeResult] = []
    clients: list[ClientResult] = []
    try:
        for mode in (m.strip() for m in args.modes.split(",") if m.strip()):
            if mode not in ("together", "model-by-model"):
                raise SystemExit(f"error: --modes: unknown mode {mode!r}")
            result = run_mode(
                mode,
                work,
                data_dir,
                tasks,
                slots=args.slots,
                per_token_s=args.per_token_s,
                timeout_s=args.timeout_s,
            )
            modes.append(result)
            print(
                f"{mode}: wall {result.wall_s:.1f} s, limit {result.limit_s:.1f} s, "
                f"wall/limit {result.ratio:.2f}",
                file=sys.stderr,
                flush=True,
            )
        for rows in (int(r) for r in args.client_rows.split(",") if r.strip()):
            clients.append(run_client(work, rows, 64, args.timeout_s, seed=20240601))
            print(
                f"client {rows} rows/model: CPU {clients[-1].cpu_s:.2f} s, "
                f"RSS {clients[-1].peak_rss_mb:.0f} MiB",
                file=sys.stderr,
                flush=True,
            )
    finally:
        stop_all()
    version = thinkeval_version()
    machine = this_machine()
    settings = (
        f"Models {', '.join(name for name, _ in MODELS)}, one `thinkeval sim` each (seeds 1-3), "
        f"{args.slots} slots (`--max-num-seqs`), {args.per_token_s:g} s per token, "
        f"`--task-shape` {' '.join(TASK_SHAPES)}; tasks C-Eval (233), BoolQ and GSM8K "
        f"({args.limit} each), budgets 2048 → 8192, concurrency {args.slots} per model. "
        f"thinkeval {version.get('thinkeval')} commit {version.get('commit', '?')}; "
        f"{machine.description}."
    )
    command = "python bench/server_bound.py " + shlex.join(list(argv or sys.argv[1:]))
    section = render_section(
        modes,
        clients,
        command=command.strip(),
        when=f"{stamp:%Y-%m-%d %H:%M} UTC",
        settings=settings,
    )
    (work / "results.json").write_text(
        json.dumps(
            {
                "modes": [asdict(m) | {"limit_s": m.limit_s, "ratio": m.ratio} for m in modes],
                "clients": [asdict(c) for c in clients],
                "settings": settings,
            },
            indent=1,
        ),
        "utf-8",
    )
    put_section(Path(args.out), section, "server-bound")
    print(section)
    return 0
