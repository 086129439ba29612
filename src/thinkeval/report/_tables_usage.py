"""Accuracy by budget, and tokens and time, as tables: each task read against its own budgets."""

from __future__ import annotations

from thinkeval.report._format import DASH, Block, Section, number, percent, table, tokens
from thinkeval.report._model import CurveRow, Report, TokenRow, UsageRow


def curve_section(report: Report, budgets: dict[str, list[int]], curves: list[CurveRow]) -> Section:
    blocks = []
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        rows = []
        for c in curves:
            if c.task != task:
                continue
            rows.append(
                (
                    c.model,
                    *(
                        f"{k}/{c.total} = {percent(k / c.total if c.total else None)}"
                        for k in c.correct_at
                    ),
                )
            )
        blocks.append(Block(heading=f"{task} (B1 {b1}, B2 {b2})"))
        if report.repeats[task] > 1:
            blocks.append(
                Block(text=f"Each of the {report.repeats[task]} replies to a question counts.")
            )
        columns = ("model", *(str(b) for b in budgets[task]))
        blocks.append(Block(table=table(columns, rows)))
        for c in curves:
            if c.task == task and c.unmeasured_correct:
                blocks.append(
                    Block(
                        text=(
                            f"{c.model}: {c.unmeasured_correct} correct replies have no reported "
                            "completion tokens and are left out of the curve."
                        )
                    )
                )
    return Section(
        "curve",
        "Accuracy by budget",
        "How many samples each model would have answered correctly at each max_tokens up to "
        "the task's B2, read from the completion tokens of the recorded replies (the fixed reply "
        "at B1 and the retry at B2): a sample counts at budget b when a strictly correct reply "
        "finished within b completion tokens. This assumes deterministic decoding: a smaller "
        "budget repeats the same prefix, so a reply that finished in t tokens would also have "
        "finished, identically, under any budget of at least t. With sampling it is an estimate.",
        blocks,
    )


def _budget(row: UsageRow) -> str:
    return "mixed" if row.budget is None else str(row.budget)


def _dist_cells(row: UsageRow) -> tuple[str, ...]:
    c = row.completion
    r = row.reasoning
    completion = (number(c.mean), tokens(c.p50), tokens(c.p90)) if c else (DASH,) * 3
    if r is None:
        reasoning: tuple[str, ...] = ("not reported",) * 3
    else:
        reasoning = (number(r.mean), tokens(r.p50), tokens(r.p90))
    return (
        row.model,
        row.task,
        _budget(row),
        str(row.replies),
        *completion,
        *reasoning,
        percent(row.budget_share),
    )


def _time_cells(row: UsageRow) -> tuple[str, ...]:
    lat = row.latency
    ttft = row.ttft
    ttft_cells = (
        tuple(number(ttft[k], 2) for k in ("p50", "p90", "p99")) if ttft else ("not streamed",) * 3
    )
    return (
        row.model,
        row.task,
        str(row.requests),
        str(row.errors),
        number(row.wall_s),
        number(row.requests_per_s, 2),
        number(row.output_tokens_per_s, 0),
        *(number(lat[k], 2) for k in ("p50", "p90", "p99")),
        *ttft_cells,
    )


def usage_section(usage: list[UsageRow]) -> Section:
    blocks = []
    for phase in ("fixed", "retry"):
        rows = [r for r in usage if r.phase == phase]
        if not rows:
            continue
        blocks.append(Block(heading=f"{phase} phase"))
        blocks.append(
            Block(
                table=table(
                    (
                        "model",
                        "task",
                        "max_tokens",
                        "replies",
                        "completion mean",
                        "completion p50",
                        "completion p90",
                        "reasoning mean",
                        "reasoning p50",
                        "reasoning p90",
                        "share of budget",
                    ),
                    [_dist_cells(r) for r in rows],
                    text_columns=2,
                )
            )
        )
        blocks.append(
            Block(
                table=table(
                    (
                        "model",
                        "task",
                        "requests",
                        "errors",
                        "wall s",
                        "requests/s",
                        "output tokens/s",
                        "latency p50 s",
                        "latency p90 s",
                        "latency p99 s",
                        "TTFT p50 s",
                        "TTFT p90 s",
                        "TTFT p99 s",
                    ),
                    [_time_cells(r) for r in rows],
                    text_columns=2,
                )
            )
        )
    return Section(
        "usage",
        "Tokens and time",
        "Token statistics are over the replies that count (one per sample, or (sample, repeat), "
        "and phase, without transport errors), each task at its own max_tokens ('mixed' for "
        "task 'all' over tasks asked at different budgets); reasoning tokens only where the "
        "server reported usage.reasoning_tokens. Share of budget is the mean of completion "
        "tokens / max_tokens. Time counts every recorded request: wall time runs from the first "
        "request sent to the last reply (started_at + latency_s), requests/s and output "
        "tokens/s divide by it. "
        "Task 'all' is the model's whole phase; tasks that ran concurrently overlap in time. "
        "TTFT (time to first token) exists only for streamed runs.",
        blocks,
    )


def tokens_section(found: list[TokenRow]) -> Section | None:
    """What each phase cost the server in tokens, against the floor of one run at B2."""
    if not found:
        return None
    rows = [
        (
            r.model,
            r.task,
            r.retry,
            str(r.fixed_prompt),
            str(r.fixed_generated),
            str(r.retry_prompt),
            str(r.retry_generated),
            str(r.generated),
            str(r.floor),
            DASH if r.ratio is None else f"{r.ratio:.3f}",
        )
        for r in found
    ]
    columns = (
        "model",
        "task",
        "retry",
        "fixed prompt",
        "fixed generated",
        "retry prompt",
        "retry generated (added)",
        "generated",
        "floor",
        "generated / floor",
    )
    return Section(
        "tokens",
        "Server tokens",
        "Prompt (prefill) and generated (decode) tokens the server processed per phase, for "
        "every successful request, from the usage it reported. Retry 'reask' asks a cut-off "
        "reply again from scratch at B2, generating its first B1 tokens twice; 'continue' "
        "carries it on from its token ids (docs/protocol.md), prefilling them again and "
        "generating only the new ones. The floor is what a single run at B2 would have "
        "generated for the same counted replies: each sample's last reply, generated once.",
        [Block(table=table(columns, rows, text_columns=3))],
    )
