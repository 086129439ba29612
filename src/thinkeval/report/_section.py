"""What a report section plug-in declares: one module per section (docs/reports.md).

A section module in `report/sections/` (or a package there, for a section too big for one
module) defines `SECTION = ReportSection(...)`: its key, its place in reading order, the numbers
it computes from the read model (`data`, kept in `Report.plugins[key]`), its titled tables
(Markdown and HTML render the same `Section`s; none where it does not apply), and optionally
notes for the report's Notes, plots drawn above its tables in HTML, and HTML after them.
`report.sections.registry` finds every module, ordered by `place`; nothing else lists sections.

Numbers are written to report.json's top level: under the section's key, or, for numbers that
are a `SectionNumbers` struct, each field under its own name (the built-in sections' numbers,
whose keys are report.json's published schema, docs/reports.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar, cast

from thinkeval.report._format import Section
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import JudgeRow, Report
from thinkeval.results.counts import Counts

if TYPE_CHECKING:
    from thinkeval.report._cells import Collection
    from thinkeval.report._samples import Catalog

__all__ = ["ReportSection", "SectionInputs", "SectionNumbers", "Shown"]

# A section's tables: one `Section`, several (one per scorer), or None where it does not apply.
Shown = Section | Sequence[Section] | None

Numbers = TypeVar("Numbers")


class SectionNumbers(Frozen, frozen=True):
    """A section's numbers whose fields are report.json top-level keys of their own (the
    built-in sections' rows, which predate plug-ins), rather than one key named after it.
    Fields named in `unwritten` are for the section's own use (its notes), not report.json."""

    unwritten: ClassVar[tuple[str, ...]] = ()


@dataclass(frozen=True)
class SectionInputs:
    """What a section may compute its numbers from: the runs' read model (`data.ordered()`
    gives each model and task's columns, `results.readmodel.TaskColumns`), the sample index,
    the bootstrap's seed and resamples, and what several sections share: each model and
    task's counts (summary.json's, the judge's scorer block included) and the judge's
    agreement rows."""

    data: Collection
    catalog: Catalog
    seed: int
    resamples: int
    counts: dict[tuple[str, str], Counts]  # per (model, task)
    judged: list[JudgeRow]  # runs judged by `thinkeval judge`


@dataclass(frozen=True)
class ReportSection(Generic[Numbers]):
    """One section of the report, as its module declares it."""

    key: str  # its HTML anchor, and its key in report.json for numbers it computes itself
    place: int  # reading order: sections are sorted by it (the built-in ones are 10 apart)
    shown: Callable[[Report], Shown]  # its titled tables, from the report's numbers
    # Its numbers, computed from the read model (msgspec structs, lists, numbers); None for a
    # section that only shows what the report shares (its runs' context).
    data: Callable[[SectionInputs], Numbers] | None = None
    notes: Callable[[Numbers], list[str]] | None = None  # sentences for the report's Notes
    plots: Callable[[Report], str] | None = None  # HTML above its tables (inline SVG)
    after: Callable[[Report], str] | None = None  # HTML below its tables

    def numbers(self, report: Report) -> Numbers:
        """What its `data` computed for this report."""
        return cast(Numbers, report.plugins[self.key])

    def sections(self, report: Report) -> list[Section]:
        """Its titled tables, as a list (empty where it does not apply)."""
        found = self.shown(report)
        if found is None:
            return []
        return [found] if isinstance(found, Section) else list(found)
