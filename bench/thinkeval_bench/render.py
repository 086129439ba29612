"""RESULTS.md from a `BenchRecord`: versions, one table per scenario, targets and checks.

Everything shown comes from the record (nothing from the machine rendering it), so a saved
results file renders to the same text at any later time.
"""

from __future__ import annotations

import math

from thinkeval_bench.figures import cpu_splits, efficiency
from thinkeval_bench.markdown import fmt, fmt_int, ratio, row
from thinkeval_bench.results import BenchRecord, Result
from thinkeval_bench.verdicts import checks, targets
from thinkeval_bench.workload import CONCURRENCY, MAX_TOKENS, MODEL, SIM_FLAGS


def _base(results: list[Result], scenario: str, setting: str) -> Result | None:
    """thinkeval's run that the × te ratios of a scenario and setting divide by."""
    for r in results:
        if r.harness == "thinkeval" and r.scenario == scenario and r.setting == setting:
            return r
    return None


def _status(r: Result) -> str:
    return "ok" if r.status == "ok" else f"{r.status}: {r.reason}".replace("|", "/")


def _costs(r: Result, base: Result | None) -> list[str]:
    """The last cells of a row: CPU per 1000 requests, peak RSS, each with its ratio to `base`,
    and the status."""
    return [
        fmt(r.cpu_per_1000, 2),
        ratio(r.cpu_per_1000, base.cpu_per_1000 if base else None),
        fmt(r.peak_rss_mb, 0),
        ratio(r.peak_rss_mb, base.peak_rss_mb if base else None),
        _status(r),
    ]


def _header(record: BenchRecord) -> list[str]:
    lines = [
        "# Benchmark results: thinkeval and peer harnesses on one GSM8K workload",
        "",
        f"Measured {record.started:%Y-%m-%d %H:%M}–{record.finished:%H:%M} UTC on "
        f"{record.machine.description} with `{record.command}`. What each number means and how "
        "it is taken: [docs/benchmarks.md](../docs/benchmarks.md).",
        "",
        f"Workload: the first {record.requests} rows of the GSM8K test split, read from a local "
        "file, as AISBench's 4-shot chain-of-thought chat prompt (8 exemplar turns, then the "
        f"question), `max_tokens` {MAX_TOKENS}, against `thinkeval sim` (model `{MODEL}`, "
        f"profile vllm-latest, seed {record.seed}, `{' '.join(SIM_FLAGS)}`: no reply is cut off "
        "or empty, so every harness sends exactly one request per sample and gets the same "
        "replies). One fresh simulator per run, on 127.0.0.1.",
        "",
        "## Versions",
        "",
        "| harness | python | packages |",
        "| --- | --- | --- |",
    ]
    for name in record.harnesses:
        if name in record.versions:
            found = dict(record.versions[name])
            python = found.pop("python", "?")
            packages = ", ".join(f"{k} {v}" for k, v in found.items())
            lines.append(f"| {name} | {python} | {packages} |")
    for name, reason in record.not_run.items():
        lines.append(f"| {name} | – | not run: {reason} |")
    lines.append("")
    if record.not_run:
        lines += ["## Not run", ""]
        lines += [f"- **{name}**: not run: {reason}" for name, reason in record.not_run.items()]
        lines.append("")
    return lines


def _zero(results: list[Result]) -> list[str]:
    lines = [
        "## Zero latency: client overhead",
        "",
        "The simulator answers at once, so the harness's own cost dominates. `c64`: 64 requests "
        "in flight requested; `default`: the harness's own defaults. At zero latency the "
        "simulator answers most requests before it reads the next one, so in-flight counts say "
        "little here (see the 1 s table for concurrency).",
        "",
        "| harness | setting | requests | wall s | × te | CPU s / 1000 req | × te | "
        "peak RSS MiB | × te | status |",
        row(["---"] * 2 + ["---:"] * 7 + ["---"]),
    ]
    for r in results:
        if r.scenario != "zero":
            continue
        b = _base(results, "zero", r.setting)
        lines.append(
            row(
                [
                    r.harness,
                    r.setting,
                    fmt_int(r.sim_requests),
                    fmt(r.wall_s),
                    ratio(r.wall_s, b.wall_s if b else None),
                    *_costs(r, b),
                ]
            )
        )
    lines.append("")
    return lines


def _split(results: list[Result]) -> list[str]:
    splits = cpu_splits(results)
    if not splits:
        return []
    lines = [
        "CPU split from the `baseline` run (same harness, 64 in flight, fewer rows): per-request "
        "CPU = (CPU at N − CPU at the baseline's n) / (N − n) requests; start-up = what is left "
        "at zero requests (interpreter, imports, data loading, reports).",
        "",
        row(
            [
                "harness",
                "CPU s, baseline",
                "CPU s, full",
                "per-request CPU ms",
                "× te",
                "start-up CPU s",
                "× te",
            ]
        ),
        row(["---"] + ["---:"] * 6),
    ]
    te = splits.get("thinkeval")
    for name, split in splits.items():
        lines.append(
            row(
                [
                    name,
                    fmt(split.baseline_cpu_s, 2),
                    fmt(split.full_cpu_s, 2),
                    fmt(split.per_request_ms, 2),
                    ratio(split.per_request_ms, te.per_request_ms if te else None),
                    fmt(split.startup_cpu_s, 2),
                    ratio(split.startup_cpu_s, te.startup_cpu_s if te else None),
                ]
            )
        )
    lines.append("")
    return lines


def _one_second(results: list[Result], requests: int) -> list[str]:
    lines = [
        "## 1 s latency: scheduling efficiency",
        "",
        "Every request takes 1 s at the server. Ideal wall for N requests at C in flight and "
        f"latency L: `ceil(N/C)·L` ({math.ceil(requests / CONCURRENCY)} s for N={requests}, "
        f"C={CONCURRENCY}, L=1 s). Efficiency = ideal / measured: over the whole command "
        "(wall, start-up included) and over the server-side span (first request received to "
        "last reply sent); wall = before 1st + span + after last. `default` rows are probes of "
        "each harness's default settings, stopped after the probe time when they take longer "
        "(projected wall: N × span / completed); their ideal uses the concurrency the server "
        "saw as C.",
        "",
        "| harness | setting | requests | max in flight | wall s | before 1st s | span s | "
        "after last s | ideal s | eff. (wall) | eff. (span) | CPU s / 1000 req | × te | "
        "peak RSS MiB | × te | status |",
        row(["---"] * 2 + ["---:"] * 13 + ["---"]),
    ]
    b = _base(results, "1s", "c64")
    for r in results:
        if r.scenario != "1s":
            continue
        wall = fmt(r.wall_s)
        if r.status == "probe" and r.sim_completed and r.span_s:
            projected = r.requests_planned * r.span_s / r.sim_completed
            wall = f"{fmt(r.wall_s)} (≈{projected:,.0f} projected)"
        done = (
            f"{r.sim_completed}/{r.requests_planned}"
            if r.status == "probe"
            else fmt_int(r.sim_requests)
        )
        lines.append(
            row(
                [
                    r.harness,
                    r.setting,
                    done,
                    fmt_int(r.max_in_flight),
                    wall,
                    fmt(r.before_first_s),
                    fmt(r.span_s),
                    fmt(r.after_last_s),
                    fmt(r.ideal_s, 0),
                    fmt(efficiency(r.ideal_s, r.wall_s), 3),
                    fmt(efficiency(r.ideal_s, r.span_s), 3),
                    *_costs(r, b),
                ]
            )
        )
    lines.append("")
    return lines


def _memory(results: list[Result]) -> list[str]:
    big = [r for r in results if r.scenario == "100k"]
    if not big:
        return []
    lines = [
        "## 100,000 samples: memory against run length (thinkeval alone, zero latency)",
        "",
        "Synthetic GSM8K-format questions (same fields, same 4-shot prompt), one data dir per "
        "length; the simulator's answer key is built from the same file.",
        "",
        row(
            [
                "samples",
                "requests",
                "wall s",
                "req/s",
                "CPU s / 1000 req",
                "peak RSS MiB",
                "× first",
                "status",
            ]
        ),
        row(["---:"] * 7 + ["---"]),
    ]
    first = big[0].peak_rss_mb
    for r in big:
        rate = r.sim_completed / r.wall_s if r.sim_completed and r.wall_s else None
        lines.append(
            row(
                [
                    f"{r.requests_planned:,}",
                    fmt_int(r.sim_requests),
                    fmt(r.wall_s),
                    fmt(rate, 0),
                    fmt(r.cpu_per_1000, 2),
                    fmt(r.peak_rss_mb, 0),
                    ratio(r.peak_rss_mb, first),
                    _status(r),
                ]
            )
        )
    lines.append("")
    return lines


def render_report(record: BenchRecord, results_file: str) -> str:
    """The text of RESULTS.md for `record`, saved as `results_file` (shown as given)."""
    results = record.results
    lines = _header(record)
    if "zero" in record.scenarios:
        lines += _zero(results)
    lines += _split(results)
    if "1s" in record.scenarios:
        lines += _one_second(results, record.requests)
    lines += _memory(results)
    lines += ["## Targets", "", *targets(results), ""]
    lines += ["## Checks", "", *checks(results, record.machine.cpus), ""]
    lines += [
        f"Every run's numbers, the versions and the machine: `{results_file}` "
        "(`python bench/run_bench.py --render-only` renders this page from it). Every harness's "
        f"config, log and output: `{record.work_dir}/` (not committed).",
        "",
    ]
    return "\n".join(lines)
