"""Section: tokens and time per model, task and phase, with the token histograms."""

from __future__ import annotations

from thinkeval.report._plots import histogram_plots
from thinkeval.report._section import ReportSection
from thinkeval.report._tables_usage import usage_section

SECTION = ReportSection(key="usage", place=90, shown=usage_section, plots=histogram_plots)
