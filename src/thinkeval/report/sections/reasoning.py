"""Section: the reasoning controls asked and whether replies kept to the thinking budget."""

from __future__ import annotations

from thinkeval.report._section import ReportSection
from thinkeval.report._tables_reasoning import reasoning_section

SECTION = ReportSection(key="reasoning", place=110, shown=reasoning_section)
