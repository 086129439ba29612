"""Section: every pair of models compared on the samples both answered (tasks asked once), or
on avg@k over the questions both answered (tasks asked k times), with notes on the pairs that
could not be compared.

A package: its rows (`rows`), the comparisons on samples (`samples`) and over questions
(`questions`), and their tables (`tables`, `question_tables`).
"""

from __future__ import annotations

from typing import ClassVar

from thinkeval.report._format import Section
from thinkeval.report._model import Report
from thinkeval.report._repeats import details
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report.sections.pairs.questions import repeat_pairs
from thinkeval.report.sections.pairs.rows import PairRow, RepeatPairRow
from thinkeval.report.sections.pairs.samples import pairs
from thinkeval.report.sections.pairs.tables import pairs_section


class PairsNumbers(SectionNumbers, frozen=True):
    pairs: list[PairRow]  # tasks asked once per question
    repeat_pairs: list[RepeatPairRow]  # tasks asked more than once: compared over questions
    notes: list[str]  # pairs not compared (the report's Notes)

    unwritten: ClassVar[tuple[str, ...]] = ("notes",)


def pairs_numbers(inputs: SectionInputs) -> PairsNumbers:
    rows, notes = pairs(inputs.catalog, inputs.seed, inputs.resamples)
    repeated, repeat_notes = repeat_pairs(inputs.data, details(inputs.data))
    return PairsNumbers(rows, repeated, notes + repeat_notes)


def pair_notes(numbers: PairsNumbers) -> list[str]:
    return numbers.notes


def shown(report: Report) -> Section:
    numbers = SECTION.numbers(report)
    return pairs_section(report, numbers.pairs, numbers.repeat_pairs)


SECTION = ReportSection(key="pairs", place=70, shown=shown, data=pairs_numbers, notes=pair_notes)
