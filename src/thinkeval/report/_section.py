"""What a report section plug-in declares: one module per section (docs/reports.md).

A section module in `report/sections/` defines `SECTION = ReportSection(...)`: its key, its
place in reading order, its titled tables (Markdown and HTML render the same `Section`s; none
where it does not apply), and optionally the numbers it computes from the read model (kept in
`Report.plugins[key]`, written at report.json's top level under `key`), plots drawn above its
tables in HTML, and HTML after them. `report.sections.registry` finds every module, ordered by
`place`; nothing else lists sections.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from thinkeval.report._format import Section
from thinkeval.report._model import Report

if TYPE_CHECKING:
    from thinkeval.report._cells import Collection
    from thinkeval.report._samples import Catalog

__all__ = ["ReportSection", "SectionInputs", "Shown"]

# A section's tables: one `Section`, several (one per scorer), or None where it does not apply.
Shown = Section | Sequence[Section] | None


@dataclass(frozen=True)
class SectionInputs:
    """What a section may compute its numbers from: the runs' read model (`data.ordered()`
    gives each model and task's columns, `results.readmodel.TaskColumns`), the sample index,
    and the bootstrap's seed and resamples."""

    data: Collection
    catalog: Catalog
    seed: int
    resamples: int


@dataclass(frozen=True)
class ReportSection:
    """One section of the report, as its module declares it."""

    key: str  # its HTML anchor, and its key in report.json for numbers it computes itself
    place: int  # reading order: sections are sorted by it (the built-in ones are 10 apart)
    shown: Callable[[Report], Shown]  # its titled tables, from the report's numbers
    # Numbers it computes from the read model (msgspec structs, lists, numbers): None for the
    # built-in sections, whose numbers are `Report` fields of their own.
    data: Callable[[SectionInputs], object] | None = None
    plots: Callable[[Report], str] | None = None  # HTML above its tables (inline SVG)
    after: Callable[[Report], str] | None = None  # HTML below its tables

    def sections(self, report: Report) -> list[Section]:
        """Its titled tables, as a list (empty where it does not apply)."""
        found = self.shown(report)
        if found is None:
            return []
        return [found] if isinstance(found, Section) else list(found)
