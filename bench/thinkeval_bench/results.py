"""What the runs measured, and the results file that keeps it.

Every invocation saves one `BenchRecord` as JSON: every run's measurements, the versions (with
thinkeval's commit), the machine and the settings. `RESULTS.md` is rendered from it alone, so a
saved file can be rendered again later (`run_bench.py --render-only FILE`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

FORMAT = 1  # the results file's layout; bumped when a field changes meaning


@dataclass
class Result:
    """One run as measured: by the benchmark (wall, CPU, RSS) and by the simulator (requests,
    tokens, timing of the first request and the last reply)."""

    harness: str
    scenario: str
    setting: str
    requests_planned: int
    latency_s: float
    status: str  # ok | failed | timeout | probe | not run
    reason: str = ""
    wall_s: float | None = None
    cpu_s: float | None = None
    peak_rss_mb: float | None = None
    exit_code: int | None = None
    sim_requests: int | None = None
    sim_completed: int | None = None
    max_in_flight: int | None = None
    distinct_prompts: int | None = None
    generation_tokens: int | None = None
    prompt_tokens: int | None = None
    by_status: dict[str, int] = field(default_factory=dict)
    span_s: float | None = None
    before_first_s: float | None = None  # launch to the first request the server saw
    after_last_s: float | None = None  # the last reply sent to the harness's exit
    ideal_s: float | None = None
    loadavg: tuple[float, float, float] | None = None
    command: str = ""
    log: str = ""

    @property
    def cpu_per_1000(self) -> float | None:
        """CPU seconds per 1000 requests the simulator completed."""
        if self.cpu_s is None or not self.sim_completed:
            return None
        return self.cpu_s * 1000.0 / self.sim_completed


@dataclass
class Machine:
    """The machine the runs were measured on."""

    description: str  # CPUs and their model, memory, kernel
    cpus: int


@dataclass
class BenchRecord:
    """One invocation: its settings, versions, machine and every run's result."""

    command: str  # as shown in RESULTS.md
    started: dt.datetime  # UTC
    finished: dt.datetime  # UTC; while running, when the last result was saved
    machine: Machine
    harnesses: list[str]  # as asked for, installed or not
    scenarios: list[str]
    requests: int
    seed: int
    versions: dict[str, dict[str, str]]  # per harness: python and package versions
    not_run: dict[str, str]  # harness: why not
    work_dir: str  # the runs' scratch folder, relative to the repository when inside it
    results: list[Result] = field(default_factory=list)
    format: int = FORMAT


def this_machine() -> Machine:
    """CPUs, CPU model, memory and kernel of this machine, from /proc."""
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = ""
    with contextlib.suppress(OSError, ValueError, IndexError):
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB RAM"
    cpus = os.cpu_count() or 1
    description = f"{cpus} CPUs ({model or platform.machine()}){memory}, Linux {platform.release()}"
    return Machine(description, cpus)


def save_record(record: BenchRecord, path: Path) -> None:
    """Write `record` to `path` as indented JSON, replacing the file in one step."""
    data = msgspec.json.format(msgspec.json.encode(record), indent=1)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data + b"\n")
    partial.replace(path)


def load_record(path: Path) -> BenchRecord:
    """Read a results file written by `save_record`; a file that cannot be read or does not hold
    one exits with a one-line error naming the file and the field."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SystemExit(f"error: cannot read results file {path}: {exc.strerror}") from None
    try:
        record = msgspec.json.decode(data, type=BenchRecord)
    except msgspec.DecodeError as exc:
        # ValidationError (a DecodeError) names the field: "... - at `$.results[0].wall_s`".
        raise SystemExit(f"error: {path} is not a benchmark results file: {exc}") from None
    if record.format != FORMAT:
        raise SystemExit(
            f"error: {path} has results format {record.format}; this script reads {FORMAT}"
        )
    return record
