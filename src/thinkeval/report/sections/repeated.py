"""Section: repeated sampling (avg@k, pass@k, maj@k, solve rates) of tasks asked k times."""

from __future__ import annotations

from thinkeval.report._plots import solve_rate_plots
from thinkeval.report._section import ReportSection
from thinkeval.report._tables_repeats import repeated_section

SECTION = ReportSection(key="repeated", place=30, shown=repeated_section, plots=solve_rate_plots)
