"""Section: the most accurate model(s) per task, fixed and adaptive."""

from __future__ import annotations

from fractions import Fraction

from thinkeval.report._format import Block, Section, table
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Comparison, Report
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.wording import adaptive_cell, fixed_cell


class BestOf(Frozen, frozen=True):
    """The most accurate model(s) of a task in one comparison; ties are listed together."""

    task: str
    phase: Comparison
    models: list[str]
    cells: list[str]  # one "correct/total = x%" per listed model, marked when incomplete
    complete: bool  # every listed model's accuracy is complete


class BestNumbers(SectionNumbers, frozen=True):
    best_of: list[BestOf]  # per task, fixed then adaptive


def best_numbers(inputs: SectionInputs) -> BestNumbers:
    data, counts = inputs.data, inputs.counts
    rows = []
    for task in data.tasks:
        for phase in ("fixed", "adaptive"):
            # Exact fractions: combined runs may differ in sample count, and floats could
            # split a true tie (or join two different accuracies) by rounding.
            scored = {}
            for model in data.models:
                c = counts[(model, task)]
                if c.total:
                    correct = c.fixed.correct if phase == "fixed" else c.adaptive.correct
                    shown = fixed_cell(c) if phase == "fixed" else adaptive_cell(c)
                    scored[model] = (Fraction(correct, c.total), shown)
            if not scored:
                continue
            best = max(value[0] for value in scored.values())
            winners = [m for m, value in scored.items() if value[0] == best]
            rows.append(
                BestOf(
                    task=task,
                    phase=phase,
                    models=winners,
                    cells=[scored[m][1] for m in winners],
                    complete=all(counts[(m, task)].complete for m in winners),
                )
            )
    return BestNumbers(rows)


def _repeated(report: Report) -> bool:
    """Some task is asked more than once per question."""
    return any(k > 1 for k in report.repeats.values())


def best_section(report: Report) -> Section:
    rows = []
    best_of = SECTION.numbers(report).best_of
    for best in best_of:
        label = ", ".join(best.models) + (" (tie)" if len(best.models) > 1 else "")
        rows.append((best.task, best.phase, label, "; ".join(best.cells)))
    warn = frozenset(i for i, best in enumerate(best_of) if not best.complete)
    return Section(
        "best",
        "Best model per task",
        "The model with the highest strict accuracy per task, fixed and adaptive"
        + (" (for a task asked k times per question, avg@k)" if _repeated(report) else "")
        + ". Models with "
        "exactly the same accuracy are listed together. Being best is not being significantly "
        "better: see the pairwise comparisons.",
        [
            Block(
                table=table(
                    ("task", "comparison", "best", "accuracy"), rows, text_columns=3, warn=warn
                )
            )
        ],
    )


SECTION = ReportSection(key="best", place=50, shown=best_section, data=best_numbers)
