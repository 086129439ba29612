"""Every pair of models compared on a task asked k times per question: avg@k over the questions
both answered in every repeat, with a paired bootstrap interval that resamples questions
(`results.questions.compare_models`), never single replies, and the sign test over the
questions one model solved more often. As in the comparisons of tasks asked once, what is left
out is said."""

from __future__ import annotations

import itertools

import msgspec

from thinkeval.report._cells import Collection
from thinkeval.report._format import points, signed
from thinkeval.report._model import Comparison
from thinkeval.report.sections.pairs.rows import RepeatPairRow, RepeatSide
from thinkeval.results.questions import QuestionRow, RepeatDetails, compare_models
from thinkeval.results.repeats import CONFIDENCE, RESAMPLES
from thinkeval.results.stats import mcnemar_exact
from thinkeval.results.wording import missing

PHASES: tuple[Comparison, ...] = ("fixed", "adaptive")


def _outcomes(row: QuestionRow, phase: Comparison) -> list[str | None]:
    return [r.fixed if phase == "fixed" else r.adaptive for r in row.repeats]


def _answered(row: QuestionRow, phase: Comparison) -> bool:
    """Every repeat has a verdict in this phase (no transport error, nothing pending)."""
    return all(status not in (None, "error") for status in _outcomes(row, phase))


def _solved(row: QuestionRow, phase: Comparison) -> int:
    return row.solved_fixed if phase == "fixed" else row.solved_adaptive


def _side(
    detail: RepeatDetails, asked: list[QuestionRow], compared: list[QuestionRow], phase: Comparison
) -> RepeatSide:
    solved = sum(_solved(row, phase) for row in compared)
    replies = len(compared) * detail.k
    statuses = [s for row in asked for s in _outcomes(row, phase)]
    return RepeatSide(
        model=detail.model,
        solved=solved,
        replies=replies,
        avg=solved / replies,
        errors=statuses.count("error"),
        pending=statuses.count(None),
    )


def _sentence(row: RepeatPairRow) -> str:
    """One plain sentence, worded like the comparisons of tasks asked once."""
    a, b, gap = row.a.model, row.b.model, 100.0 * row.difference
    shown = points(abs(row.difference)).lstrip("+").removesuffix(" pp")
    if shown == "0.00":
        head = f"On avg@{row.k}, {a} scores the same as {b}"
    else:
        head = f"On avg@{row.k}, {a} is {shown} pp {'above' if gap > 0 else 'below'} {b}"
    ci = (
        f"{100 * row.confidence:g}% CI {signed(row.ci_low)} to {signed(row.ci_high)} pp, "
        "resampling questions"
    )
    p = "sign test p < 0.001" if row.p_value < 0.001 else f"sign test p = {row.p_value:.3f}"
    if row.significant:
        text = f"{head} ({ci}; {p}): the difference is unlikely to be noise."
    elif not (row.ci_low > 0 or row.ci_high < 0):
        text = f"{head}, which cannot be told apart from noise ({ci}, includes 0; {p})."
    else:
        text = f"{head}, which cannot be told apart from noise ({ci}; but {p} is not below 0.05)."
    if row.left_out:
        why = "; ".join(
            f"{side.model}: {missing(side.errors, side.pending)}"
            for side in (row.a, row.b)
            if side.errors or side.pending
        )
        text = (
            f"On the {row.n} of {row.asked} questions both answered in every repeat: {text} Not "
            f"conclusive for all {row.asked}: {row.left_out} are left out ({why}); run the same "
            "command again to re-ask them."
        )
    return text


def _pair(
    task: str, phase: Comparison, a: RepeatDetails, b: RepeatDetails, notes: list[str]
) -> RepeatPairRow | None:
    by_id = {row.id: row for row in b.questions}
    shared = [(x, by_id[x.id]) for x in a.questions if x.id in by_id]
    if not shared:
        if phase == "fixed":
            notes.append(f"{a.model} and {b.model} share no {task} questions: not compared.")
        return None
    both = [(x, y) for x, y in shared if _answered(x, phase) and _answered(y, phase)]
    if not both:
        notes.append(
            f"{a.model} and {b.model}: no {task} question has an answer from both in every "
            f"repeat ({phase}), so they are not compared yet; run the same command again to "
            "re-ask the replies with errors or no reply."
        )
        return None
    versus = compare_models(
        RepeatDetails(a.model, task, a.k, [x for x, _ in both]),
        RepeatDetails(b.model, task, b.k, [y for _, y in both]),
        adaptive=phase == "adaptive",
    )
    a_more = [x.id for x, y in both if _solved(x, phase) > _solved(y, phase)]
    b_more = [x.id for x, y in both if _solved(y, phase) > _solved(x, phase)]
    p_value = mcnemar_exact(len(a_more), len(b_more))
    excludes_zero = versus.low > 0 or versus.high < 0
    row = RepeatPairRow(
        task=task,
        phase=phase,
        k=a.k,
        a=_side(a, [x for x, _ in shared], [x for x, _ in both], phase),
        b=_side(b, [y for _, y in shared], [y for _, y in both], phase),
        asked=len(shared),
        n=len(both),
        left_out=len(shared) - len(both),
        difference=versus.value,
        ci_low=versus.low,
        ci_high=versus.high,
        a_more=len(a_more),
        b_more=len(b_more),
        a_more_ids=a_more,
        b_more_ids=b_more,
        p_value=p_value,
        significant=excludes_zero and p_value < 1 - CONFIDENCE,
        sentence="",
        resamples=RESAMPLES,
        seed=0,
        confidence=CONFIDENCE,
    )
    return msgspec.structs.replace(row, sentence=_sentence(row))


def repeat_pairs(
    data: Collection, found: dict[tuple[str, str], RepeatDetails]
) -> tuple[list[RepeatPairRow], list[str]]:
    """Every pair of models on every task asked more than once, fixed and adaptive; notes on
    pairs not compared."""
    rows: list[RepeatPairRow] = []
    notes: list[str] = []
    for task in data.tasks:
        if data.repeats[task] < 2:
            continue
        for phase in PHASES:
            for a, b in itertools.combinations(data.models, 2):
                first, second = found.get((a, task)), found.get((b, task))
                if first is None or second is None:
                    continue
                row = _pair(task, phase, first, second, notes)
                if row is not None:
                    rows.append(row)
    return rows, notes
