"""Section: why replies did not finish, with the still-thinking curves."""

from __future__ import annotations

from thinkeval.report._plots_diagnosis import thinking_plots
from thinkeval.report._section import ReportSection
from thinkeval.report._tables_diagnosis import diagnosis_section

SECTION = ReportSection(key="diagnosis", place=120, shown=diagnosis_section, plots=thinking_plots)
