"""The comparisons of a task asked k times per question as tables: avg@k of both models, the
difference with its interval, the sign test, and the questions one solved more often (opened
side by side in the sample browser)."""

from __future__ import annotations

from thinkeval.report._format import (
    Block,
    p_value,
    percent,
    points,
    samples_link,
    shown_ids,
    signed,
    table,
)
from thinkeval.report._model import Comparison
from thinkeval.report.sections.pairs.rows import PairRow, RepeatPairRow

# The columns that open the questions one model solved more often, in the sample browser.
A_MORE_COLUMN, B_MORE_COLUMN = 8, 9


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


def pair_link(p: PairRow | RepeatPairRow, side: str) -> str:
    """The sample browser showing the pair side by side on one side's list: the discordant
    samples (asked once), or the questions one model solved more often (asked k times)."""
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
        links[(i, A_MORE_COLUMN)] = pair_link(p, "a")
        links[(i, B_MORE_COLUMN)] = pair_link(p, "b")
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
