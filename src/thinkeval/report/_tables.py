"""The report's sections as titled tables of text: the one place numbers are formatted.

Markdown and HTML both render these, so the two always show the same figures with the same
rounding. Cells are plain text; each renderer escapes them for its own syntax.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from thinkeval.report._model import BreakdownRow, PairRow, PairSide, Report, UsageRow
from thinkeval.results.summary import Counts

DASH = "–"  # shown where a number does not exist (no candidates, nothing timed)


@dataclass(frozen=True)
class Table:
    """A table of text cells; `numeric[i]` right-aligns column i."""

    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]
    numeric: tuple[bool, ...]


@dataclass(frozen=True)
class Block:
    """A sub-heading, a paragraph, a bullet list or a table inside a section."""

    heading: str | None = None
    text: str | None = None
    bullets: tuple[str, ...] = ()
    table: Table | None = None


@dataclass(frozen=True)
class Section:
    """One numbered section: `key` names it for anchors and for the plots HTML adds."""

    key: str
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)


def percent(value: float | None) -> str:
    """`0.7945` -> `79.45%`; a dash for no value."""
    if value is None or math.isnan(value):
        return DASH
    return f"{100.0 * value:.2f}%"


def points(value: float | None) -> str:
    """A difference of proportions in signed percentage points: `0.1646` -> `+16.46 pp`."""
    if value is None:
        return DASH
    return f"{round(100.0 * value, 2) + 0.0:+.2f} pp"


def number(value: float | None, digits: int = 1) -> str:
    """A plain number with fixed decimals, or a dash."""
    return DASH if value is None else f"{value:.{digits}f}"


def p_value(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def interval(low: float, high: float) -> str:
    """A Wilson interval as `[62.50, 87.68]` (percent; the accuracy beside it carries the %)."""
    if math.isnan(low) or math.isnan(high):
        return f"[{DASH}]"
    return f"[{100.0 * low:.2f}, {100.0 * high:.2f}]"


def signed(value: float) -> str:
    """A proportion as signed points without the unit: `-0.225` -> `-22.50`."""
    return f"{round(100.0 * value, 2) + 0.0:+.2f}"


def _table(
    columns: tuple[str, ...], rows: Sequence[tuple[str, ...]], text_columns: int = 1
) -> Table:
    """Columns after the first `text_columns` are numbers and right-aligned."""
    numeric = tuple(i >= text_columns for i in range(len(columns)))
    return Table(columns, list(rows), numeric)


def header_lines(report: Report) -> list[str]:
    """Which runs, budgets and settings the report covers, one bullet each."""
    b1, b2 = report.budgets
    lines = []
    for run in report.runs:
        state = "complete" if run.complete else "incomplete"
        lines.append(f"Run {run.name} ({run.path}, {state}): {', '.join(run.models)}")
    lines.append(f"Budgets: fixed max_tokens {b1}, retry {b2}")
    lines.append(f"Tasks: {', '.join(report.tasks)}")
    lines.append(
        f"Bootstrap: {report.resamples} resamples, seed {report.seed}; "
        f"thinkeval {report.thinkeval_version}"
    )
    return lines


def sections(report: Report) -> list[Section]:
    """Every section of the report, in reading order."""
    return [
        _headline(report),
        _outcomes(report),
        _best_of(report),
        _lenient(report),
        _pairs(report),
        _curve(report),
        _usage(report),
    ]


def _headline(report: Report) -> Section:
    b1, b2 = report.budgets
    blocks = []
    for task in report.tasks:
        rows = [
            (r.model, r.fixed_cell, r.adaptive_cell, r.gain)
            for r in report.headline
            if r.task == task
        ]
        blocks.append(Block(heading=task))
        blocks.append(
            Block(table=_table(("model", f"fixed {b1}", f"adaptive {b1}→{b2}", "gain"), rows))
        )
    return Section(
        "headline",
        "1. Headline",
        f"Strict accuracy with one reply per sample at max_tokens={b1} (fixed), and after the "
        f"single retry at {b2} of the samples whose fixed reply was empty or unfinished "
        "(adaptive). Gain is adaptive minus fixed, in percentage points.",
        blocks,
    )


def _outcome_cells(c: Counts) -> tuple[str, ...]:
    f = c.fixed
    return (
        str(c.total),
        str(f.correct),
        str(f.wrong),
        str(f.no_answer),
        str(f.empty),
        str(f.unfinished),
        str(f.error),
        str(f.pending),
        str(c.retry.candidates),
    )


def _retry_cells(row: BreakdownRow) -> tuple[str, ...]:
    r = row.counts.retry
    return (
        str(r.candidates),
        str(r.answered),
        str(r.correct),
        str(r.wrong),
        str(r.no_answer),
        str(r.unfinished + r.empty),
        str(r.error),
        str(r.pending),
        percent(row.rates.recovery),
        percent(row.rates.new_correct),
        percent(row.rates.answered_accuracy),
    )


def _outcomes(report: Report) -> Section:
    b1, b2 = report.budgets
    blocks = []
    for task in report.tasks:
        rows = [r for r in report.breakdown if r.task == task]
        whole = [r for r in rows if r.subject is None]
        blocks.append(Block(heading=task))
        blocks.append(Block(text=f"Fixed phase at {b1} (strict verdicts):"))
        blocks.append(
            Block(
                table=_table(
                    (
                        "model",
                        "samples",
                        "correct",
                        "wrong",
                        "no_answer",
                        "empty",
                        "unfinished",
                        "error",
                        "pending",
                        "retry candidates",
                    ),
                    [(r.model, *_outcome_cells(r.counts)) for r in whole],
                )
            )
        )
        blocks.append(Block(text=f"Retry at {b2} of the candidates:"))
        blocks.append(
            Block(
                table=_table(
                    (
                        "model",
                        "candidates",
                        "answered",
                        "correct",
                        "wrong",
                        "no_answer",
                        "still unfinished or empty",
                        "error",
                        "pending",
                        "recovery",
                        "new correct",
                        "accuracy when answered",
                    ),
                    [(r.model, *_retry_cells(r)) for r in whole],
                )
            )
        )
        subjects = [r for r in rows if r.subject is not None]
        if subjects:
            blocks.append(Block(text="Per subject:"))
            blocks.append(
                Block(
                    table=_table(
                        (
                            "model",
                            "subject",
                            "samples",
                            "fixed",
                            "adaptive",
                            "wrong",
                            "no_answer",
                            "empty",
                            "unfinished",
                            "error",
                            "candidates",
                            "answered",
                            "retry correct",
                        ),
                        [_subject_cells(r) for r in subjects],
                        text_columns=2,
                    )
                )
            )
    return Section(
        "outcomes",
        "2. Outcomes",
        "Every sample's strict verdict: correct, wrong (a final answer that does not match), "
        "no_answer (finished without a legal final answer), empty (no content), unfinished (cut "
        "off by max_tokens); error counts transport failures left after the client's retries, "
        "pending what has no reply yet. Retry candidates are the fixed replies that were empty "
        "or unfinished. Answered means the retry formed a legal final answer (correct + wrong). "
        "Recovery = answered / candidates; new correct = retry correct / candidates; accuracy "
        "when answered = retry correct / answered.",
        blocks,
    )


def _subject_cells(row: BreakdownRow) -> tuple[str, ...]:
    c = row.counts
    f = c.fixed
    return (
        row.model,
        row.subject or "",
        str(c.total),
        f"{f.correct} ({percent(f.accuracy)})",
        f"{c.adaptive.correct} ({percent(c.adaptive.accuracy)})",
        str(f.wrong),
        str(f.no_answer),
        str(f.empty),
        str(f.unfinished),
        str(f.error),
        str(c.retry.candidates),
        str(c.retry.answered),
        str(c.retry.correct),
    )


def _best_of(report: Report) -> Section:
    rows = []
    for best in report.best_of:
        label = ", ".join(best.models) + (" (tie)" if len(best.models) > 1 else "")
        rows.append((best.task, best.phase, label, "; ".join(best.cells)))
    return Section(
        "best",
        "3. Best model per task",
        "The model with the highest strict accuracy per task, fixed and adaptive. Models with "
        "exactly the same accuracy are listed together. Being best is not being significantly "
        "better: see the pairwise comparisons.",
        [Block(table=_table(("task", "comparison", "best", "accuracy"), rows, text_columns=3))],
    )


def _lenient(report: Report) -> Section:
    rows = [
        (
            r.model,
            r.task,
            percent(r.strict_fixed),
            percent(r.lenient_fixed),
            points(r.lenient_fixed - r.strict_fixed),
            str(r.lenient_on_cut_fixed),
            percent(r.strict_adaptive),
            percent(r.lenient_adaptive),
            points(r.lenient_adaptive - r.strict_adaptive),
            str(r.lenient_on_cut_adaptive),
        )
        for r in report.lenient
    ]
    return Section(
        "lenient",
        "4. Strict vs lenient",
        "The lenient scorer is what AISBench/OpenCompass report by default: it reads the "
        "reasoning as well as the content and ignores the finish reason, so it can find a "
        "'correct' number or letter in a reply the model never finished. 'Lenient on cut' counts "
        "samples the lenient scorer marks correct although the strict verdict is empty or "
        "unfinished.",
        [
            Block(
                table=_table(
                    (
                        "model",
                        "task",
                        "strict fixed",
                        "lenient fixed",
                        "lenient − strict",
                        "lenient on cut (fixed)",
                        "strict adaptive",
                        "lenient adaptive",
                        "lenient − strict",
                        "lenient on cut (adaptive)",
                    ),
                    rows,
                    text_columns=2,
                )
            )
        ],
    )


def _side(side: PairSide) -> str:
    return f"{percent(side.accuracy)} {interval(side.wilson_low, side.wilson_high)}"


def _pair_cells(p: PairRow) -> tuple[str, ...]:
    return (
        p.a.model,
        p.b.model,
        str(p.n),
        _side(p.a),
        _side(p.b),
        f"{points(p.difference)} [{signed(p.ci_low)}, {signed(p.ci_high)}]",
        p_value(p.p_value),
        str(p.a_only),
        str(p.b_only),
        f"{p.point_weight:.3f} pp",
        f"{p.a.unscored} / {p.b.unscored}",
    )


def _pairs(report: Report) -> Section:
    b1, b2 = report.budgets
    blocks = []
    for task in report.tasks:
        for phase, label in (("fixed", f"fixed {b1}"), ("adaptive", f"adaptive {b1}→{b2}")):
            rows = [p for p in report.pairs if p.task == task and p.phase == phase]
            if not rows:
                continue
            blocks.append(Block(heading=f"{task}, {label}"))
            blocks.append(
                Block(
                    table=_table(
                        (
                            "A",
                            "B",
                            "n",
                            "A accuracy [Wilson 95%]",
                            "B accuracy [Wilson 95%]",
                            "A − B [95% CI]",
                            "McNemar p",
                            "A only",
                            "B only",
                            "one question",
                            "error or pending A / B",
                        ),
                        [_pair_cells(p) for p in rows],
                        text_columns=2,
                    )
                )
            )
            blocks.append(
                Block(bullets=tuple(p.sentence + (f" ({p.note}.)" if p.note else "") for p in rows))
            )
    return Section(
        "pairs",
        "5. Pairwise comparisons",
        f"Every pair of models on the samples both were asked. A − B is the accuracy "
        f"difference with a 95% paired bootstrap interval ({report.resamples} resamples of the "
        f"samples, seed {report.seed}); McNemar's exact test uses only the discordant samples "
        "(A only: A right and B wrong; B only: the reverse). 'One question' is how many points "
        "a single sample moves the accuracy (100 / n). Samples with an error or no reply yet "
        "count as not correct; the last column says how many there were.",
        blocks,
    )


def _curve(report: Report) -> Section:
    b1, b2 = report.budgets
    blocks = []
    for task in report.tasks:
        rows = []
        for c in report.curves:
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
        blocks.append(Block(heading=task))
        blocks.append(Block(table=_table(("model", *(str(b) for b in report.curve_budgets)), rows)))
        for c in report.curves:
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
        "6. Accuracy by budget",
        f"How many samples each model would have answered correctly at each max_tokens up to "
        f"{b2}, read from the completion tokens of the recorded replies (the fixed reply at {b1} "
        f"and the retry at {b2}): a sample counts at budget b when a strictly correct reply "
        "finished within b completion tokens. This assumes deterministic decoding: a smaller "
        "budget repeats the same prefix, so a reply that finished in t tokens would also have "
        "finished, identically, under any budget of at least t. With sampling it is an estimate.",
        blocks,
    )


def _dist_cells(row: UsageRow) -> tuple[str, ...]:
    c = row.completion
    r = row.reasoning
    completion = (number(c.mean), number(c.p50), number(c.p90)) if c else (DASH,) * 3
    if r is None:
        reasoning: tuple[str, ...] = ("not reported",) * 3
    else:
        reasoning = (number(r.mean), number(r.p50), number(r.p90))
    return (
        row.model,
        row.task,
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


def _usage(report: Report) -> Section:
    blocks = []
    for phase in ("fixed", "retry"):
        rows = [r for r in report.usage if r.phase == phase]
        if not rows:
            continue
        budget = rows[0].budget
        blocks.append(Block(heading=f"{phase} phase (max_tokens {budget})"))
        blocks.append(
            Block(
                table=_table(
                    (
                        "model",
                        "task",
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
                table=_table(
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
        "7. Tokens and time",
        "Token statistics are over the replies that count (one per sample and phase, without "
        "transport errors); reasoning tokens only where the server reported "
        "usage.reasoning_tokens. Share of budget is the mean of completion tokens / max_tokens. "
        "Time counts every recorded request: wall time runs from the first request sent to the "
        "last reply (started_at + latency_s), requests/s and output tokens/s divide by it. "
        "Task 'all' is the model's whole phase; tasks that ran concurrently overlap in time. "
        "TTFT (time to first token) exists only for streamed runs.",
        blocks,
    )
