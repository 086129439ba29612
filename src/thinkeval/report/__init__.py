"""Reports: what a run (or several combined runs) found, as Markdown, HTML or JSON.

Reports read only run directories (config, samples, journal) and never call a model. The
numbers are computed once into a `Report` object that every format renders, so the formats
agree, and rendering the same runs twice gives the same bytes.

>>> from pathlib import Path
>>> from thinkeval.report import build_report, render_markdown
>>> report = build_report([Path("runs/qwen3-compare")])  # doctest: +SKIP
>>> print(render_markdown(report))  # doctest: +SKIP
"""

from __future__ import annotations

from thinkeval.report._build import build_report
from thinkeval.report._html import render_html
from thinkeval.report._json import render_json
from thinkeval.report._markdown import render_markdown
from thinkeval.report._model import Report

__all__ = ["Report", "build_report", "render_html", "render_json", "render_markdown"]
