"""Which runs make up each scenario, and the data folders they read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from thinkeval_bench.workload import LONG_FACTOR, write_first_rows, write_synthetic

SCENARIOS: tuple[str, ...] = ("zero", "1s", "100k")


@dataclass(frozen=True)
class RunSpec:
    """One run: a harness, a scenario and a setting, on a data dir of exactly `requests` rows."""

    harness: str
    scenario: str  # zero | 1s | 100k
    setting: str  # c64 | default | baseline | c64-long
    requests: int  # samples in the data file
    latency_s: float
    data_dir: Path  # holds gsm8k/test.jsonl with exactly `requests` rows
    stop_after_s: float | None = None  # a probe: stop the harness after this long

    @property
    def synthetic(self) -> bool:
        """Whether the rows are synthetic (the simulator's answer key must come from them)."""
        return self.scenario == "100k" or self.setting == "c64-long"


@dataclass(frozen=True)
class DataDirs:
    """The data dirs of one invocation, each holding gsm8k/test.jsonl."""

    first: Path  # the first --requests rows of the real test split
    baseline: Path | None = None  # its first `baseline_rows` rows
    baseline_rows: int = 0
    long: Path | None = None  # LONG_FACTOR × --requests synthetic rows (1 s, thinkeval)
    synthetic: dict[int, Path] = field(default_factory=dict)  # the 100k scenario's, by length


def write_data(
    source: Path,
    root: Path,
    *,
    requests: int,
    baseline_requests: int,
    harnesses: Sequence[str],
    scenarios: Sequence[str],
    sizes_100k: Sequence[int],
    seed: int,
) -> DataDirs:
    """Write under `root` the data dirs the planned runs read, from the real split `source`."""
    first = root / f"gsm8k-first-{requests}"
    write_first_rows(source, first, requests)
    baseline = None
    if 0 < baseline_requests < requests:
        baseline = root / f"gsm8k-first-{baseline_requests}"
        write_first_rows(source, baseline, baseline_requests)
    long = None
    if "1s" in scenarios and "thinkeval" in harnesses:
        long = root / f"synthetic-{requests * LONG_FACTOR}"
        write_synthetic(long, requests * LONG_FACTOR, seed)
    synthetic: dict[int, Path] = {}
    if "100k" in scenarios and "thinkeval" in harnesses:
        for size in sizes_100k:
            synthetic[size] = root / f"synthetic-{size}"
            write_synthetic(synthetic[size], size, seed)
    return DataDirs(
        first, baseline, baseline_requests if baseline else 0, long, synthetic=synthetic
    )


def plan_runs(
    harnesses: Sequence[str],
    scenarios: Sequence[str],
    requests: int,
    data: DataDirs,
    probe_s: float,
) -> Iterator[RunSpec]:
    """The runs of the scenarios, in order: at zero latency every harness at 64 in flight, at its
    defaults and (when there are baseline rows) on the baseline rows; at 1 s every harness at 64,
    thinkeval on the long synthetic rows, then probes of every harness's defaults; the memory
    scenario is thinkeval alone, one run per synthetic length."""
    if "zero" in scenarios:
        for harness in harnesses:
            yield RunSpec(harness, "zero", "c64", requests, 0.0, data.first)
            yield RunSpec(harness, "zero", "default", requests, 0.0, data.first)
            if data.baseline is not None:
                yield RunSpec(harness, "zero", "baseline", data.baseline_rows, 0.0, data.baseline)
    if "1s" in scenarios:
        for harness in harnesses:
            yield RunSpec(harness, "1s", "c64", requests, 1.0, data.first)
        if data.long is not None and "thinkeval" in harnesses:
            # The same at LONG_FACTOR times the length: start-up is a fixed cost, so the
            # whole-command efficiency approaches the span's as the run grows.
            yield RunSpec("thinkeval", "1s", "c64-long", requests * LONG_FACTOR, 1.0, data.long)
        for harness in harnesses:
            yield RunSpec(harness, "1s", "default", requests, 1.0, data.first, stop_after_s=probe_s)
    if "100k" in scenarios and "thinkeval" in harnesses:
        for size, folder in data.synthetic.items():
            yield RunSpec("thinkeval", "100k", "c64", size, 0.0, folder)


def run_timeout(spec: RunSpec, timeout_s: float) -> float:
    """The limit of one run: --timeout-s, stretched for the memory scenario's longest runs."""
    return timeout_s if spec.scenario != "100k" else max(timeout_s, spec.requests * 0.03)
