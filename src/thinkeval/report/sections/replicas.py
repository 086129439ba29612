"""Section: accuracy and cut-off rate per replica of a model served by several base URLs, with
the replicas whose numbers stand out from the rest's (`results.replicas`)."""

from __future__ import annotations

from thinkeval.report._replicas import replicas_section
from thinkeval.report._section import ReportSection

SECTION = ReportSection(key="replicas", place=115, shown=replicas_section)
