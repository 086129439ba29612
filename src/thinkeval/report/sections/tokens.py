"""Section: what the requests cost the server, against a single run at B2."""

from __future__ import annotations

from thinkeval.report._section import ReportSection
from thinkeval.report._tables_usage import tokens_section

SECTION = ReportSection(key="tokens", place=100, shown=tokens_section)
