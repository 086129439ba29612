"""Two revisions of thinkeval side by side: the same workload, interleaved runs, ratios.

`python bench/compare_revisions.py --base f7da732` runs thinkeval from a `git archive` of each
revision (the base, and the working tree or `--new REV`) against a fresh simulator for every
run, alternating base and new so that load on a shared machine hits both alike, and prints the
medians and the new/base ratios of:

* CPU seconds per 1000 requests (a zero-latency GSM8K run of `--requests` rows, 64 in flight),
* start-up: CPU seconds of a 20-request run (import, config, samples, identity check),
* peak RSS of a zero-latency run over `--memory-rows` synthetic GSM8K rows,
* report time: CPU seconds (and peak RSS) of `thinkeval report --format html` over the
  zero-latency run and over the memory run.

The simulator always comes from the working tree, so both revisions talk to the same server.
"""

from __future__ import annotations

import compileall
import io
import statistics
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from thinkeval_bench import REPO
from thinkeval_bench.measure import Usage, run_measured
from thinkeval_bench.runenv import base_env, take_snapshot
from thinkeval_bench.simulator import Simulator
from thinkeval_bench.workload import MAX_TOKENS, MODEL, write_first_rows, write_synthetic

HTTP_LAYER = Path(__file__).resolve().parent / "http_layer.py"

CONFIG = """\
run: compare
data_dir: {data_dir}
budgets: [{budget}, 8192]
tasks: [{{name: gsm8k, limit: {limit}}}]
models:
  - name: {model}
    base_url: {base_url}
    concurrency: 64
"""


@dataclass
class Revision:
    """One revision's snapshot and what its runs measured, by measurement name."""

    name: str
    path: Path
    samples: dict[str, list[float]] = field(default_factory=dict)

    def add(self, what: str, value: float) -> None:
        self.samples.setdefault(what, []).append(value)

    def median(self, what: str) -> float:
        return statistics.median(self.samples[what])


def archive(revision: str, target: Path) -> Path:
    """`src/thinkeval` at `revision` (the working tree for `WORKTREE`), byte-compiled."""
    target.mkdir(parents=True, exist_ok=True)
    if revision == "WORKTREE":
        take_snapshot(target)
        return target
    data = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", revision, "src/thinkeval"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(target, filter="data")
    (target / "src" / "thinkeval").rename(target / "thinkeval")
    compileall.compile_dir(target / "thinkeval", quiet=1)
    return target


def _against_simulator(
    revision: Revision,
    data_dir: Path,
    work: Path,
    seed: int,
    argv_for: Callable[[str], list[str]],
    timeout_s: float,
) -> Usage:
    """Run the command `argv_for(base_url)` with `revision` on the path against a fresh
    zero-latency simulator that knows `data_dir`, and measure it."""
    work.mkdir(parents=True, exist_ok=True)
    sim = Simulator(seed=seed, latency_s=0.0, data_dir=data_dir, log_path=work / "sim.log")
    sim.start()
    try:
        env = dict(base_env(), PYTHONPATH=str(revision.path))
        argv = argv_for(sim.base_url)
        return run_measured(argv, env=env, cwd=work, log_path=work / "run.log", timeout_s=timeout_s)
    finally:
        sim.stop()


def one_run(
    revision: Revision, data_dir: Path, limit: int, work: Path, seed: int
) -> tuple[float, float, float, int]:
    """Run `limit` rows with `revision`; (CPU s, wall s, peak RSS MiB, exit code)."""

    def argv_for(base_url: str) -> list[str]:
        config = work / "run.yaml"
        config.write_text(
            CONFIG.format(
                data_dir=data_dir, budget=MAX_TOKENS, limit=limit, model=MODEL, base_url=base_url
            )
        )
        return [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(work / "r")]

    usage = _against_simulator(revision, data_dir, work, seed, argv_for, timeout_s=1800.0)
    return usage.cpu_s, usage.wall_s, usage.peak_rss_mb, usage.exit_code or 0


def report_run(revision: Revision, run_dir: Path, work: Path) -> tuple[float, float]:
    """`thinkeval report --format html` of `run_dir` with `revision`; (CPU s, peak RSS MiB)."""
    work.mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable, "-m", "thinkeval", "report", str(run_dir), "--format", "html",
        "--out", str(work / "report.html"),
    ]  # fmt: skip
    env = dict(base_env(), PYTHONPATH=str(revision.path))
    usage = run_measured(argv, env=env, cwd=work, log_path=work / "run.log", timeout_s=1800.0)
    _check(usage.exit_code or 0, revision, work)
    return usage.cpu_s, usage.peak_rss_mb


def http_layer_run(
    revision: Revision, rows: Path, requests: int, work: Path, seed: int
) -> tuple[float, float]:
    """The revision's HTTP layer alone sending `requests` of `rows`; (CPU s, peak RSS MiB)."""

    def argv_for(base_url: str) -> list[str]:
        return [
            sys.executable, str(HTTP_LAYER), "--url", base_url, "--rows", str(rows),
            "--requests", str(requests), "--model", MODEL,
        ]  # fmt: skip

    usage = _against_simulator(revision, rows.parent.parent, work, seed, argv_for, timeout_s=600.0)
    _check(usage.exit_code or 0, revision, work)
    return usage.cpu_s, usage.peak_rss_mb


def compare(
    base: str,
    *,
    new_revision: str = "WORKTREE",
    work: Path,
    data_source: Path,
    requests: int,
    memory_rows: int,
    rounds: int,
    seed: int,
    log: Callable[[str], None],
) -> list[Revision]:
    """Measure both revisions `rounds` times, interleaved; return their samples."""
    new_name = "new" if new_revision == "WORKTREE" else f"new {new_revision}"
    new = Revision(new_name, archive(new_revision, work / "new"))
    if new_revision != "WORKTREE":
        take_snapshot(work / "simulator")  # the simulator is the working tree's, as always
    old = Revision(f"base {base}", archive(base, work / "base"))
    rows = write_first_rows(data_source, work / "rows", requests)
    synthetic = work / "synthetic"
    write_synthetic(synthetic, memory_rows, seed)
    data = rows.parent.parent
    for round_no in range(rounds):
        order = (old, new) if round_no % 2 == 0 else (new, old)
        for revision in order:
            tag = f"{revision.name.split()[0]}-{round_no}"
            cpu, wall, rss, code = one_run(revision, data, requests, work / f"zero-{tag}", seed)
            _check(code, revision, work / f"zero-{tag}")
            revision.add("cpu_per_1000", cpu * 1000 / requests)
            revision.add("wall", wall)
            report_cpu, _ = report_run(revision, work / f"zero-{tag}" / "r", work / f"rep-{tag}")
            revision.add("report_cpu", report_cpu)
            cpu20, _, _, code = one_run(revision, data, 20, work / f"start-{tag}", seed)
            _check(code, revision, work / f"start-{tag}")
            revision.add("startup_cpu", cpu20)
            layer, layer_rss = http_layer_run(revision, rows, requests, work / f"http-{tag}", seed)
            layer20, _ = http_layer_run(revision, rows, 20, work / f"http20-{tag}", seed)
            revision.add("http_cpu_per_1000", layer * 1000 / requests)
            revision.add("http_startup_cpu", layer20)
            revision.add("http_rss", layer_rss)
            revision.add("rest_cpu_per_1000", (cpu - layer) * 1000 / requests)
            revision.add("rest_startup_cpu", cpu20 - layer20)
            _, _, rss, code = one_run(revision, synthetic, memory_rows, work / f"mem-{tag}", seed)
            _check(code, revision, work / f"mem-{tag}")
            revision.add("peak_rss", rss)
            big_cpu, big_rss = report_run(
                revision, work / f"mem-{tag}" / "r", work / f"rep-mem-{tag}"
            )
            revision.add("report_big_cpu", big_cpu)
            revision.add("report_big_rss", big_rss)
            revision.add("rest_rss", rss - layer_rss)
            log(f"round {round_no + 1}/{rounds} {revision.name}: done")
    return [old, new]


def _check(code: int, revision: Revision, work: Path) -> None:
    if code != 0:
        tail = (work / "run.log").read_text(errors="replace")[-600:]
        raise RuntimeError(f"{revision.name} failed (exit {code}) in {work}:\n{tail}")


MEASURES = (
    ("cpu_per_1000", "CPU s per 1000 requests (zero latency, 64 in flight)", 2),
    ("startup_cpu", "start-up: CPU s of a 20-request run", 2),
    ("wall", "wall s of the zero-latency run", 2),
    ("peak_rss", "peak RSS MiB, memory run", 0),
    ("report_cpu", "report: CPU s of the HTML report of the zero-latency run", 2),
    ("report_big_cpu", "report: CPU s of the HTML report of the memory run", 2),
    ("report_big_rss", "report: peak RSS MiB, memory run's HTML report", 0),
    ("http_cpu_per_1000", "HTTP layer alone: CPU s per 1000 requests", 2),
    ("http_startup_cpu", "HTTP layer alone: CPU s of 20 requests", 2),
    ("http_rss", "HTTP layer alone: peak RSS MiB", 0),
    ("rest_cpu_per_1000", "the rest (run - HTTP layer): CPU s per 1000 requests", 2),
    ("rest_startup_cpu", "the rest (run - HTTP layer): start-up CPU s", 2),
    ("rest_rss", "the rest (memory run - HTTP layer): peak RSS MiB", 0),
)


def render(revisions: list[Revision], requests: int, memory_rows: int, rounds: int) -> str:
    """A Markdown table of medians and new/base ratios."""
    old, new = revisions
    lines = [
        f"{rounds} interleaved rounds; {requests} GSM8K rows; memory run {memory_rows} rows.",
        "",
        f"| measure | {old.name} | {new.name} | new / base |",
        "| --- | ---: | ---: | ---: |",
    ]
    for key, label, digits in MEASURES:
        a, b = old.median(key), new.median(key)
        lines.append(f"| {label} | {a:.{digits}f} | {b:.{digits}f} | {b / a:.2f} |")
    return "\n".join(lines) + "\n"
