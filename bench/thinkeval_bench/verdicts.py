"""The Targets and Checks sections of RESULTS.md: thinkeval against its targets, and whether
every harness sent the same prompts and got the same replies."""

from __future__ import annotations

from thinkeval_bench.figures import cpu_splits, efficiency
from thinkeval_bench.markdown import fmt
from thinkeval_bench.results import Result


def _met(ok: bool) -> str:
    return "**met**" if ok else "**NOT met**"


def targets(results: list[Result]) -> list[str]:
    """One bullet per target that these results can decide, each saying met or NOT met."""
    out: list[str] = []
    ok = [r for r in results if r.status == "ok" and r.cpu_per_1000 is not None]
    for scenario in ("zero", "1s"):
        rows = [r for r in ok if r.scenario == scenario and r.setting == "c64"]
        te = next((r for r in rows if r.harness == "thinkeval"), None)
        if te is None or len(rows) < 2:
            continue
        best = min(rows, key=lambda r: r.cpu_per_1000 or 0.0)
        others = ", ".join(
            f"{r.harness} {r.cpu_per_1000:.2f}" for r in rows if r.harness != "thinkeval"
        )
        out.append(
            f"- Least CPU per request ({scenario} latency, c64): "
            f"{_met(best.harness == 'thinkeval')}"
            f": thinkeval {te.cpu_per_1000:.2f} CPU s / 1000 requests; {others}."
        )
    splits = cpu_splits(results)
    if "thinkeval" in splits and len(splits) > 1:
        fastest = min(splits, key=lambda name: splits[name].per_request_ms)
        others = ", ".join(
            f"{n} {v.per_request_ms:.2f}" for n, v in splits.items() if n != "thinkeval"
        )
        out.append(
            f"- Least CPU per request, start-up excluded (marginal, zero latency): "
            f"{_met(fastest == 'thinkeval')}: thinkeval "
            f"{splits['thinkeval'].per_request_ms:.2f} ms per request; {others}."
        )
    te1 = next(
        (
            r
            for r in results
            if r.harness == "thinkeval" and r.scenario == "1s" and r.setting == "c64"
        ),
        None,
    )
    if te1 is not None and te1.ideal_s and te1.wall_s:
        eff_wall = te1.ideal_s / te1.wall_s
        eff_span = efficiency(te1.ideal_s, te1.span_s)
        out.append(
            f"- ≥ 0.95 of ideal throughput at 1 s latency: over the whole command "
            f"{eff_wall:.3f} ({_met(eff_wall >= 0.95)}); over the "
            f"server-side span {fmt(eff_span, 3)} "
            f"({_met(eff_span is not None and eff_span >= 0.95)})."
        )
    long = next((r for r in results if r.harness == "thinkeval" and r.setting == "c64-long"), None)
    if te1 is not None and long is not None and long.ideal_s and long.wall_s and te1.wall_s:
        fixed = (te1.before_first_s or 0.0) + (te1.after_last_s or 0.0)
        out.append(
            f"  Start-up and wrap-up are a fixed {fixed:.1f} s ({te1.before_first_s or 0:.1f} s "
            f"before the first request, {te1.after_last_s or 0:.1f} s after the last), not a "
            f"per-request cost: at {long.requests_planned:,} requests the whole command reaches "
            f"{long.ideal_s / long.wall_s:.3f} of ideal."
        )
    big = [r for r in results if r.scenario == "100k" and r.peak_rss_mb]
    if len(big) >= 2:
        first, last = big[0], big[-1]
        growth = (last.peak_rss_mb or 0) / (first.peak_rss_mb or 1)
        per_k = ((last.peak_rss_mb or 0) - (first.peak_rss_mb or 0)) / max(
            1, (last.requests_planned - first.requests_planned) / 1000
        )
        out.append(
            f"- Memory flat in the run length (peak RSS at {last.requests_planned:,} within 10 % "
            f"of {first.requests_planned:,}): {_met(growth <= 1.10)}: "
            f"{first.peak_rss_mb:.0f} → {last.peak_rss_mb:.0f} MiB ({growth:.2f}×, "
            f"{per_k:.2f} MiB per 1000 more samples)."
        )
    return out or ["(no target could be evaluated from this run)"]


_CHECK_FIELDS = {
    "distinct prompts": "distinct_prompts",
    "prompt tokens (all messages, as the simulator counts them)": "prompt_tokens",
    "generated tokens": "generation_tokens",
}


def checks(results: list[Result], cpus: int) -> list[str]:
    """Per group of completed runs on the same rows: whether they sent the same prompts and got
    the same replies (the simulator's counters); and the load on the `cpus` CPUs."""
    out: list[str] = []
    full = [
        r
        for r in results
        if r.status == "ok" and r.scenario in ("zero", "1s") and r.generation_tokens
    ]
    for size in sorted({r.requests_planned for r in full}, reverse=True):
        group = [r for r in full if r.requests_planned == size]
        exact = [r for r in group if r.sim_requests == size]
        extra = [r for r in group if r.sim_requests != size]
        if len(exact) < 2:
            continue
        out.append(f"- Runs on {size} rows ({len(exact)} with exactly one request per row):")
        for label, field_name in _CHECK_FIELDS.items():
            values = sorted({getattr(r, field_name) for r in exact})
            verdict = (
                f"yes, {values[0]}"
                if len(values) == 1
                else "NO: "
                + ", ".join(
                    f"{r.harness}/{r.scenario}/{r.setting} {getattr(r, field_name)}" for r in exact
                )
            )
            out.append(f"  - same {label}: {verdict}")
        for r in extra:
            out.append(
                f"  - {r.harness}/{r.scenario}/{r.setting} sent {r.sim_requests} requests for "
                f"{size} rows (AISBench: its warm-up request); its totals include them: "
                f"{r.distinct_prompts} distinct prompts, {r.prompt_tokens} prompt tokens, "
                f"{r.generation_tokens} generated tokens"
            )
    out.append(
        "- The simulator's reply depends only on the last user message and max_tokens, so equal "
        "generated-token totals mean equal replies."
    )
    loads = [r.loadavg[0] for r in results if r.loadavg]
    if loads:
        out.append(
            f"- 1-minute load average after the runs: {min(loads):.1f}–{max(loads):.1f} on "
            f"{cpus} CPUs (other work on the machine inflates wall times, not CPU s)."
        )
    return out
