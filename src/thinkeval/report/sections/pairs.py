"""Section: every pair of models compared on the samples both answered."""

from __future__ import annotations

from thinkeval.report._section import ReportSection
from thinkeval.report._tables_pairs import pairs_section

SECTION = ReportSection(key="pairs", place=70, shown=pairs_section)
