"""Drive one GSM8K workload through thinkeval and the harnesses users would otherwise pick.

Every harness sends the same GSM8K prompts (AISBench's 4-shot chain-of-thought chat prompt, the
first N rows of the real test split, read from a local file) to the same simulated model
(`python -m thinkeval sim`, one fresh simulator per run, same seed), and gets the same replies.
For each run the script measures, from outside the harness:

* wall time of the harness command, from launch to exit;
* CPU seconds (user + sys) of the harness's whole process tree, per 1000 requests;
* peak RSS of the process tree (sum over its processes, sampled from /proc);
* the requests the server saw and the most it saw in flight at once (`/sim/stats`);
* at 1 s latency, the efficiency: ideal wall `ceil(N/C) * L` over the measured time.

Every invocation saves every run's numbers, the versions, the machine and the commit in a
results file (RESULTS.json beside --out, and results.json in the invocation's work folder), and
renders --out from it; --render-only renders --out again from a saved results file.

Usage (from the repository root, inside thinkeval's virtualenv)::

    python bench/run_bench.py --setup                  # once: a virtualenv per peer harness
    python bench/run_bench.py                          # all harnesses, all scenarios
    python bench/run_bench.py --harnesses thinkeval,lm-eval --scenarios zero
    python bench/run_bench.py --render-only bench/RESULTS.json   # nothing run

Linux only (/proc, prctl). See docs/benchmarks.md for what each number means.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from thinkeval_bench import BENCH_DIR, REPO
from thinkeval_bench.execute import execute
from thinkeval_bench.measure import set_subreaper, stop_all, stop_all_on_signals
from thinkeval_bench.peers import HARNESSES
from thinkeval_bench.peers.install import find_installed, setup_peer
from thinkeval_bench.plan import SCENARIOS, plan_runs, run_timeout, write_data
from thinkeval_bench.render import render_report
from thinkeval_bench.results import BenchRecord, load_record, save_record, this_machine
from thinkeval_bench.runenv import take_snapshot, thinkeval_location, thinkeval_version
from thinkeval_bench.sections import keep_sections
from thinkeval_bench.workload import SIZES_100K, gsm8k_source, write_prompt


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="run_bench.py",
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="See docs/benchmarks.md.",
    )
    names = ",".join(HARNESSES)
    parser.add_argument(
        "--harnesses", default=names, help=f"comma-separated, from {names} (default: all)"
    )
    parser.add_argument(
        "--requests", type=int, default=1000, help="GSM8K rows asked (default 1000)"
    )
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help=f"comma-separated, from {','.join(SCENARIOS)} (default: all)",
    )
    parser.add_argument("--envs", default=str(BENCH_DIR / ".envs"), help="virtualenvs folder")
    parser.add_argument("--setup", action="store_true", help="create the peers' virtualenvs first")
    parser.add_argument(
        "--out",
        default=str(BENCH_DIR / "RESULTS.md"),
        help="results page; the results file is saved beside it with the suffix .json",
    )
    parser.add_argument("--work", default=str(BENCH_DIR / "out"), help="scratch folder for runs")
    parser.add_argument("--data-dir", help="datasets folder holding gsm8k/test.jsonl")
    parser.add_argument("--seed", type=int, default=20240601, help="simulator seed")
    parser.add_argument(
        "--timeout-s", type=float, default=900.0, help="per-run limit (default 900 s)"
    )
    parser.add_argument(
        "--probe-s",
        type=float,
        default=45.0,
        help="at 1 s latency, stop a run at default settings after this long (default 45 s)",
    )
    parser.add_argument(
        "--baseline-requests",
        type=int,
        default=20,
        help="zero latency: also run each harness (c64) on this many rows, to split its CPU into "
        "start-up and per-request parts (default 20; 0: skip)",
    )
    parser.add_argument(
        "--sizes-100k",
        type=_sizes,
        default=list(SIZES_100K),
        help="run lengths of the memory scenario (default 10000,50000,100000)",
    )
    parser.add_argument(
        "--render-only",
        metavar="RESULTS_JSON",
        help="run nothing: render --out from this saved results file (other options ignored)",
    )
    return parser


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(n) for n in text.split(",") if n.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not comma-separated whole numbers: {text!r}") from None
    if not sizes or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"needs one or more positive numbers: {text!r}")
    return sizes


def results_path(out: Path) -> Path:
    """Where the results file of the page `out` is saved: beside it, suffix .json."""
    return out.with_name(out.name + ".json") if out.suffix == ".json" else out.with_suffix(".json")


def _shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _find_harnesses(
    names: Sequence[str], envs: Path, setup: bool, log: Callable[[str], None]
) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """(versions of the harnesses that can run, why each other one cannot), after installing
    the peers first when `setup`."""
    versions: dict[str, dict[str, str]] = {}
    not_run: dict[str, str] = {}
    for name in names:
        install = HARNESSES[name].install
        if install is None:
            continue
        if setup:
            problem = setup_peer(name, install, envs, log)
            if problem:
                not_run[name] = problem
                continue
        found, why_not = find_installed(name, install, envs)
        if found is None:
            not_run[name] = why_not
        else:
            versions[name] = found
    return versions, not_run


def _logger(out_dir: Path) -> tuple[Callable[[str], None], TextIO]:
    handle = open(out_dir / "bench.log", "a")  # noqa: SIM115 - the whole run

    def log(message: str) -> None:
        line = f"[{dt.datetime.now().strftime('%H:%M:%S')}] {message}"
        print(line, file=sys.stderr, flush=True)
        handle.write(line + "\n")
        handle.flush()

    return log, handle


def _run(args: argparse.Namespace, harnesses: list[str], scenarios: list[str], cmd: str) -> int:
    sizes: list[int] = args.sizes_100k
    envs = Path(args.envs).resolve()
    out_dir = Path(args.work).resolve() / dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir.mkdir(parents=True, exist_ok=True)
    log, log_file = _logger(out_dir)
    stop_all_on_signals()
    set_subreaper()
    versions = {"thinkeval": thinkeval_version()}
    versions["thinkeval"]["snapshot"] = take_snapshot(out_dir / "snapshot")
    log(f"thinkeval and the simulator run from {thinkeval_location()}")
    record = BenchRecord(
        command=cmd,
        started=_now(),
        finished=_now(),
        machine=this_machine(),
        harnesses=harnesses,
        scenarios=scenarios,
        requests=args.requests,
        seed=args.seed,
        versions=versions,
        not_run={},
        work_dir=_shown(out_dir),
    )
    raw = out_dir / "results.json"
    try:
        found, record.not_run = _find_harnesses(harnesses, envs, args.setup, log)
        versions.update(found)
        source = gsm8k_source(args.data_dir)
        answers = source.parent.parent
        data = write_data(
            source,
            out_dir / "data",
            requests=args.requests,
            baseline_requests=args.baseline_requests,
            harnesses=harnesses,
            scenarios=scenarios,
            sizes_100k=sizes,
            seed=args.seed,
        )
        prompt_file = write_prompt(out_dir / "data" / "gsm8k_4shot_chat_prompt.json")
        runnable = [h for h in harnesses if h not in record.not_run]
        for spec in plan_runs(runnable, scenarios, args.requests, data, args.probe_s):
            result = execute(
                spec,
                envs=envs,
                out_dir=out_dir,
                prompt_file=prompt_file,
                answer_dir=spec.data_dir if spec.synthetic else answers,
                seed=args.seed,
                timeout_s=run_timeout(spec, args.timeout_s),
                log=log,
            )
            record.results.append(result)
            record.finished = _now()
            save_record(record, raw)  # kept up to date: an interrupted run keeps what it did
    finally:
        stop_all()
    record.finished = _now()
    save_record(record, raw)
    out = Path(args.out)
    save_record(record, results_path(out))
    _write_page(out, render_report(record, _shown(results_path(out).resolve())))
    log(f"wrote {out} and {results_path(out)} (logs and raw copy: {out_dir})")
    log_file.close()
    return 0


def _write_page(out: Path, page: str) -> None:
    """Write RESULTS.md, keeping the sections `server_bound.py` and `math_bench.py` put there."""
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    out.write_text(keep_sections(old, page), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """The benchmark's command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.render_only:
        if Path(args.render_only).resolve() == Path(args.out).resolve():
            parser.error("--render-only reads the file that --out would overwrite")
        source = Path(args.render_only)
        record = load_record(source)
        _write_page(Path(args.out), render_report(record, _shown(source.resolve())))
        print(f"wrote {args.out} from {args.render_only}", file=sys.stderr)
        return 0
    harnesses = [h.strip() for h in args.harnesses.split(",") if h.strip()]
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = [h for h in harnesses if h not in HARNESSES] + [
        s for s in scenarios if s not in SCENARIOS
    ]
    if unknown:
        parser.error(f"unknown harness or scenario: {', '.join(unknown)}")
    if args.requests <= 0 or args.baseline_requests < 0:
        parser.error("--requests must be positive and --baseline-requests not negative")
    shown = argv if argv is not None else sys.argv[1:]
    return _run(args, harnesses, scenarios, shlex.join(["run_bench.py", *shown]))
