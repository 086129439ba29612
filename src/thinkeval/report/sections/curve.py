"""Section: the accuracy each model would have had at each completion-token budget.

Each task is read against its own budgets; with repeats, every (sample, repeat) is one reply
among the task's units.
"""

from __future__ import annotations

import thinkeval.report._svg as _svg
from thinkeval.report._cells import ModelTask
from thinkeval.report._format import Block, Section, percent, table
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Report
from thinkeval.report._plots import MODEL_COLORS, figure
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.columns import CORRECT, ERROR, ReplyColumns
from thinkeval.results.stats import budget_curve

# Budgets the curve table always shows when they lie within B2 (B1 and B2 are added).
CURVE_TABLE_BUDGETS = (512, 1024, 2048, 4096, 8192)
CURVE_GRID_STEPS = 128  # plot resolution: B2 / 128 tokens per step


class CurveRow(Frozen, frozen=True):
    """Accuracy one model would have had on a task at each completion-token budget."""

    model: str
    task: str
    total: int  # units: samples, or (sample, repeat) pairs
    correct_at: list[int]  # aligned with CurveNumbers.curve_budgets[task]
    grid: list[int]  # budgets for the plot, 0 .. B2
    grid_correct: list[int]
    unmeasured_correct: int  # correct replies without reported completion tokens: left out


class CurveNumbers(SectionNumbers, frozen=True):
    curve_budgets: dict[str, list[int]]  # per task: the budgets its table shows
    curves: list[CurveRow]  # per model and task


def curve_numbers(inputs: SectionInputs) -> CurveNumbers:
    data = inputs.data
    budgets = {task: curve_budgets(data.budgets[task]) for task in data.tasks}
    return CurveNumbers(budgets, [curve(mt, budgets[mt.task]) for mt in data.ordered()])


def curve_budgets(budgets: tuple[int, int]) -> list[int]:
    b1, b2 = budgets
    return sorted({b for b in CURVE_TABLE_BUDGETS if b <= b2} | {b1, b2})


def _tokens(replies: ReplyColumns, position: int) -> int | None:
    tokens = int(replies.completion[position])
    return None if tokens < 0 else tokens


def curve(mt: ModelTask, table: list[int]) -> CurveRow:
    """Per budget, the units with a strictly correct counted reply within that many tokens."""
    candidate = mt.candidate
    per_sample: list[list[tuple[bool, int | None]]] = []
    for unit in range(mt.units):
        replies = [mt.fixed] if mt.fixed.status[unit] < ERROR else []
        if candidate[unit] and mt.retry.status[unit] < ERROR:
            replies.append(mt.retry)
        per_sample.append([(bool(r.status[unit] == CORRECT), _tokens(r, unit)) for r in replies])
    unmeasured = sum(1 for pairs in per_sample for ok, tokens in pairs if ok and tokens is None)
    b2 = mt.budgets[1]
    grid = sorted(
        {round(b2 * i / CURVE_GRID_STEPS) for i in range(CURVE_GRID_STEPS + 1)} | set(table)
    )
    return CurveRow(
        model=mt.model,
        task=mt.task,
        total=mt.units,
        correct_at=budget_curve(per_sample, table),
        grid=grid,
        grid_correct=budget_curve(per_sample, grid),
        unmeasured_correct=unmeasured,
    )


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


def curve_plots(report: Report, found: list[CurveRow]) -> str:
    figures = []
    for task in report.tasks:
        b1, b2 = report.budgets[task]
        curves = [c for c in found if c.task == task]
        if not curves:
            continue
        series = [
            _svg.Series(
                c.model,
                MODEL_COLORS[report.models.index(c.model) % len(MODEL_COLORS)],
                [k / c.total if c.total else 0.0 for k in c.grid_correct],
            )
            for c in curves
        ]
        # Evenly spaced ticks: the table's budgets crowd together at the left of a long axis.
        ticks = [round(b2 * i / 4) for i in range(5)]
        svg = _svg.step_chart(
            f"Accuracy by budget on {task}",
            curves[0].grid,
            series,
            x_ticks=ticks,
            x_marks=[(b1, f"B1 {b1}"), (b2, f"B2 {b2}")],
        )
        figures.append(figure(task, svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def shown(report: Report) -> Section:
    numbers = SECTION.numbers(report)
    return curve_section(report, numbers.curve_budgets, numbers.curves)


def plots(report: Report) -> str:
    return curve_plots(report, SECTION.numbers(report).curves)


SECTION = ReportSection(key="curve", place=80, shown=shown, data=curve_numbers, plots=plots)
