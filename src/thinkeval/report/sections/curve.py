"""Section: the accuracy each model would have had at each completion-token budget."""

from __future__ import annotations

from thinkeval.report._plots import curve_plots
from thinkeval.report._section import ReportSection
from thinkeval.report._tables_usage import curve_section

SECTION = ReportSection(key="curve", place=80, shown=curve_section, plots=curve_plots)
