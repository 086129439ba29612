"""The arithmetic behind the derived figures: ideal wall time and the CPU split."""

from __future__ import annotations

import math
from dataclasses import dataclass

from thinkeval_bench.results import Result


def ideal_wall(requests: int, concurrency: int, latency_s: float) -> float:
    """The shortest wall time for `requests` requests, `concurrency` at a time, each taking
    `latency_s`: full waves of `concurrency` requests, one after another.

    >>> ideal_wall(1000, 64, 1.0)
    16.0
    """
    return math.ceil(requests / concurrency) * latency_s


def efficiency(ideal_s: float | None, measured_s: float | None) -> float | None:
    """ideal / measured, or None when either is missing or zero."""
    return ideal_s / measured_s if ideal_s and measured_s else None


@dataclass(frozen=True)
class CpuSplit:
    """A harness's CPU split into a fixed start-up part and a per-request part."""

    baseline_cpu_s: float  # the run on the baseline's n rows
    full_cpu_s: float  # the run on all N rows
    per_request_ms: float  # (CPU at N − CPU at n) / (N − n)
    startup_cpu_s: float  # CPU at n − n × per request: what is left at zero requests


def cpu_splits(results: list[Result]) -> dict[str, CpuSplit]:
    """Per harness with both an ok zero-latency `c64` run and an ok `baseline` run on fewer
    completed requests, its CPU split; harnesses in the order of their `c64` runs."""
    out: dict[str, CpuSplit] = {}
    for full in results:
        if full.scenario != "zero" or full.setting != "c64" or full.status != "ok":
            continue
        small = next(
            (
                r
                for r in results
                if r.harness == full.harness
                and r.scenario == "zero"
                and r.setting == "baseline"
                and r.status == "ok"
            ),
            None,
        )
        if small is None or full.cpu_s is None or small.cpu_s is None:
            continue
        n_full, n_small = full.sim_completed or 0, small.sim_completed or 0
        if n_full <= n_small:
            continue
        per_request = (full.cpu_s - small.cpu_s) / (n_full - n_small)
        out[full.harness] = CpuSplit(
            small.cpu_s, full.cpu_s, per_request * 1000, small.cpu_s - per_request * n_small
        )
    return out
