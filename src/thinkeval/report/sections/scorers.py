"""Sections: strict beside each other scorer (lenient, any registered one, the judge's)."""

from __future__ import annotations

from thinkeval.report._section import ReportSection
from thinkeval.report._tables_scorers import scorer_sections

SECTION = ReportSection(key="scorers", place=60, shown=scorer_sections)
