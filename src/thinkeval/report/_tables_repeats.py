"""Repeated sampling and the judge scorer as tables: their sections and their pairwise blocks."""

from __future__ import annotations

from thinkeval.report._format import (
    Block,
    Section,
    interval,
    p_value,
    percent,
    points,
    samples_link,
    shown_ids,
    signed,
    table,
)
from thinkeval.report._model import Comparison, JudgeRow, RepeatPairRow, RepeatRow, Report
from thinkeval.results.repeats import Interval, PhaseRepeats
from thinkeval.results.wording import cell

# The columns that open the questions one model solved more often, in the sample browser.
A_MORE_COLUMN, B_MORE_COLUMN = 8, 9
# The judge table's column that opens the disagreeing samples.
DISAGREE_COLUMN = 4


def units_note(report: Report, task: str) -> str | None:
    """For a task asked k times per question: what its counts count."""
    k = report.repeats[task]
    if k == 1:
        return None
    return (
        f"{task} is asked {k} times per question: these counts are over (question, repeat) "
        f"replies (questions × {k}), each through the protocol on its own, so the accuracy is "
        f"avg@{k}; pass@k, maj@k and their intervals are in Repeated sampling."
    )


def _with_interval(value: Interval) -> str:
    return f"{percent(value.value)} {interval(value.low, value.high)}"


def _phase_cells(metrics: PhaseRepeats) -> tuple[str, ...]:
    """avg@k, pass@j for j > 1 (pass@1 is avg@k), maj@k, the counts behind maj@k, solve rates."""
    return (
        _with_interval(metrics.avg),
        *(_with_interval(value) for j, value in metrics.pass_at.items() if j != "1"),
        _with_interval(metrics.maj),
        str(metrics.no_vote),
        str(metrics.ties),
        " / ".join(str(count) for count in metrics.solved),
    )


def repeated_section(report: Report, repeated: list[RepeatRow]) -> Section | None:
    """avg@k, pass@j, maj@k and the solve rates of every task asked more than once."""
    if not repeated:
        return None
    blocks = []
    for task in report.tasks:
        rows = [r for r in repeated if r.task == task]
        if not rows:
            continue
        first = rows[0].metrics
        k = first.k
        blocks.append(Block(heading=f"{task}: {k} replies per question"))
        cells: list[tuple[str, ...]] = []
        warn: set[int] = set()
        for row in rows:
            phases = (("fixed", row.metrics.fixed), ("adaptive", row.metrics.adaptive))
            for phase, metrics in phases:
                if not row.complete:
                    warn.add(len(cells))
                cells.append((row.model, phase, str(row.metrics.questions), *_phase_cells(metrics)))
        columns = (
            "model",
            "phase",
            "questions",
            f"avg@{k} [95% CI]",
            *(f"pass@{j} [95% CI]" for j in first.fixed.pass_at if j != "1"),
            f"maj@{k} [95% CI]",
            "no vote",
            "ties",
            f"questions solved 0, 1, …, {k} times",
        )
        blocks.append(Block(table=table(columns, cells, text_columns=2, warn=frozenset(warn))))
    return Section(
        "repeated",
        "Repeated sampling",
        "For each task asked k times per question, per model and phase (fixed, and adaptive: "
        "after the one retry of each (question, repeat) that was empty or unfinished): avg@k, "
        "the mean accuracy over all k replies of every question; pass@j, the chance that at "
        "least one of j replies is correct (the unbiased estimator of Chen et al. 2021; pass@1 "
        "equals avg@k, so it is not repeated); maj@k, whether the most common final answer is "
        "correct (only replies with a final answer vote, equivalent answers count as one, a "
        "question nobody voted on counts as wrong: 'no vote'; a tie splits the credit: "
        "'ties'); and how many questions "
        "were solved 0, 1, …, k times. The 95% intervals come from a bootstrap that resamples "
        "questions (10,000 resamples, seed 0, as in summary.json), since the k replies to one "
        "question are not independent. The numbers are summary.json's repeated block. A "
        "highlighted row is incomplete: replies with errors or not asked yet count as wrong.",
        blocks,
    )


def _side(avg: float, solved: int, replies: int) -> str:
    return f"{percent(avg)} ({solved}/{replies})"


def _pair_cells(p: RepeatPairRow) -> tuple[str, ...]:
    return (
        p.a.model,
        p.b.model,
        str(p.asked),
        str(p.n),
        _side(p.a.avg, p.a.solved, p.a.replies),
        _side(p.b.avg, p.b.solved, p.b.replies),
        f"{points(p.difference)} [{signed(p.ci_low)}, {signed(p.ci_high)}]",
        p_value(p.p_value),
        str(p.a_more),
        str(p.b_more),
        f"{p.a.errors + p.a.pending} / {p.b.errors + p.b.pending}",
    )


def more_link(p: RepeatPairRow, side: str) -> str:
    """The sample browser showing the pair side by side on the questions one solved more."""
    return samples_link(
        task=p.task, view="pair", a=p.a.model, b=p.b.model, phase=p.phase, disc=side
    )


def repeat_pair_blocks(
    found: list[RepeatPairRow], task: str, phase: Comparison, label: str
) -> list[Block]:
    """The comparisons of one task asked more than once, in one phase."""
    rows = [p for p in found if p.task == task and p.phase == phase]
    if not rows:
        return []
    k = rows[0].k
    links = {}
    for i, p in enumerate(rows):
        links[(i, A_MORE_COLUMN)] = more_link(p, "a")
        links[(i, B_MORE_COLUMN)] = more_link(p, "b")
    columns = (
        "A",
        "B",
        "questions asked",
        "n (answered in every repeat)",
        f"A avg@{k} (correct/replies)",
        f"B avg@{k} (correct/replies)",
        "A − B [95% CI over questions]",
        "sign test p",
        "A solved more often",
        "B solved more often",
        "error or pending A / B",
    )
    bullets = []
    for p in rows:
        bullets.append(p.sentence)
        bullets.append(
            f"Questions {p.a.model} solved in more of its {k} repeats ({p.a_more}): "
            f"{shown_ids(p.a_more_ids)}; {p.b.model} in more ({p.b_more}): "
            f"{shown_ids(p.b_more_ids)}."
        )
    return [
        Block(heading=f"{task}, {label} (avg@{k}, compared over questions)"),
        Block(
            table=table(
                columns,
                [_pair_cells(p) for p in rows],
                text_columns=2,
                warn=frozenset(i for i, p in enumerate(rows) if p.left_out),
                links=links,
            )
        ),
        Block(bullets=tuple(bullets)),
    ]


# What the report says of the judge, in its "Strict vs judge" section (`_tables_scorers`).
JUDGE_ABOUT = (
    "thinkeval judge asked a judge model to extract the final answer of every finished "
    "reply that counts (empty and cut-off replies have none, so nothing is judge-correct on "
    "cut); its answer is compared with the gold exactly as strict compares. The judge never "
    "changes the strict numbers: this shows where strict's reading of a reply may be wrong, "
    "for review. Accuracies are over every (sample, repeat), as summary.json's "
    "scorers.judge; a reply not judged yet counts as not correct for the judge. Below, a "
    "reply is judged the same way when strict and the judge give the same verdict and the "
    "same answer; 'disagree' opens the samples in the sample browser (filter: strict and "
    "judge disagree), each card with both readings."
)


def judge_blocks(judged: list[JudgeRow]) -> list[Block]:
    """The judge's own extras per model and task: how many replies it judged, how often it
    reads them as strict does, and the disagreeing samples (empty for runs never judged)."""
    if not judged:
        return []
    rows, links, listed = [], {}, []
    for i, row in enumerate(judged):
        rows.append(
            (
                row.model,
                row.task,
                str(row.judged),
                str(row.agreed),
                str(row.disagreed),
                percent(row.agreement),
                str(row.not_judged),
                cell(row.strict_correct, row.units),
                cell(row.judge_correct, row.units),
            )
        )
        if row.disagreeing_ids:
            listed.append(
                f"{row.model} on {row.task}, disagreeing samples "
                f"({len(row.disagreeing_ids)}): {shown_ids(row.disagreeing_ids)}."
            )
        if row.disagreed:
            links[(i, DISAGREE_COLUMN)] = samples_link(
                model=row.model, task=row.task, judge="disagree"
            )
    columns = (
        "model",
        "task",
        "judged",
        "agree",
        "disagree",
        "agreement",
        "not judged yet",
        "strict adaptive",
        "judge adaptive",
    )
    return [
        Block(heading="Agreement with strict"),
        Block(table=table(columns, rows, text_columns=2, links=links)),
        Block(bullets=tuple(listed)),
    ]
