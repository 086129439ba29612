"""The pairwise comparisons as tables: every pair of models, its sentence and the samples behind
it; tasks asked more than once per question are compared over questions (`question_tables`)."""

from __future__ import annotations

from thinkeval.report._format import (
    Block,
    Section,
    interval,
    p_value,
    percent,
    points,
    shown_ids,
    signed,
    table,
)
from thinkeval.report._model import Comparison, Report
from thinkeval.report.sections.pairs.question_tables import pair_link, repeat_pair_blocks
from thinkeval.report.sections.pairs.rows import PairRow, PairSide, RepeatPairRow

REPEATED_INTRO = (
    " A task asked k times per question is compared on avg@k over the questions both answered "
    "in every repeat: the interval resamples questions (10,000 resamples, seed 0, as "
    "summary.json), and the sign test (McNemar's exact test on questions) counts the questions "
    "each model solved in more of its repeats."
)

# The columns that open the discordant lists in the page's sample browser.
A_ONLY_COLUMN, B_ONLY_COLUMN = 8, 9


def _side(side: PairSide) -> str:
    return f"{percent(side.accuracy)} {interval(side.wilson_low, side.wilson_high)}"


def _pair_cells(p: PairRow) -> tuple[str, ...]:
    return (
        p.a.model,
        p.b.model,
        str(p.asked),
        str(p.n),
        _side(p.a),
        _side(p.b),
        f"{points(p.difference)} [{signed(p.ci_low)}, {signed(p.ci_high)}]",
        p_value(p.p_value),
        str(p.a_only),
        str(p.b_only),
        f"{p.point_weight:.3f} pp",
        f"{p.a.errors + p.a.pending} / {p.b.errors + p.b.pending}",
    )


def _ids(p: PairRow) -> str:
    parts = [
        f"{p.a.model} right, {p.b.model} wrong ({p.a_only}): {shown_ids(p.a_only_ids) or 'none'}",
        f"{p.b.model} right, {p.a.model} wrong ({p.b_only}): {shown_ids(p.b_only_ids) or 'none'}",
    ]
    return "Discordant samples: " + "; ".join(parts) + "."


def pairs_section(
    report: Report, pairs: list[PairRow], repeat_pairs: list[RepeatPairRow]
) -> Section:
    blocks = []
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        phases: tuple[tuple[Comparison, str], ...] = (
            ("fixed", f"fixed {b1}"),
            ("adaptive", f"adaptive {b1}→{b2}"),
        )
        for phase, label in phases:
            if report.repeats[task] > 1:
                blocks += repeat_pair_blocks(repeat_pairs, task, phase, label)
                continue
            rows = [p for p in pairs if p.task == task and p.phase == phase]
            if not rows:
                continue
            links = {}
            for i, p in enumerate(rows):
                links[(i, A_ONLY_COLUMN)] = pair_link(p, "a")
                links[(i, B_ONLY_COLUMN)] = pair_link(p, "b")
            blocks.append(Block(heading=f"{task}, {label}"))
            blocks.append(
                Block(
                    table=table(
                        (
                            "A",
                            "B",
                            "asked",
                            "n (both answered)",
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
                        warn=frozenset(i for i, p in enumerate(rows) if p.left_out),
                        links=links,
                    )
                )
            )
            bullets = []
            for p in rows:
                bullets.append(p.sentence + (f" ({p.note}.)" if p.note else ""))
                bullets.append(_ids(p))
            blocks.append(Block(bullets=tuple(bullets)))
    return Section(
        "pairs",
        "Pairwise comparisons",
        f"Every pair of models on the samples both were asked and both answered: a sample with "
        f"a transport error or no reply yet on either side is left out (a failed request says "
        f"nothing about the model), and the sentence says how many and how to re-ask them. "
        f"A − B is the accuracy difference with a 95% paired bootstrap interval "
        f"({report.resamples} resamples of the samples, seed {report.seed}); McNemar's exact "
        "test uses only the discordant samples (A only: A right and B wrong; B only: the "
        "reverse), listed under each sentence and opened side by side in the sample browser. "
        "'One question' is how many points a single sample moves the accuracy (100 / n)."
        + (REPEATED_INTRO if any(k > 1 for k in report.repeats.values()) else ""),
        blocks,
    )
