"""Section: the circumstances of each run (when, which servers, settings, cards, data)."""

from __future__ import annotations

from html import escape

import orjson

from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection
from thinkeval.report._tables_context import context_section


def model_cards(report: Report) -> str:
    """Each model's whole /v1/models card, folded away under the run context tables."""
    parts = []
    for context in report.context:
        for model in context.models:
            if model.card is None:
                continue
            card = orjson.dumps(model.card, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
            parts.append(
                f"<details><summary>/v1/models card of {escape(model.model)} "
                f"({escape(context.name)})</summary><pre>{escape(card.decode())}</pre></details>"
            )
    return "".join(parts)


# Its numbers are the report's own `context`: the header's run dates and simulated models
# read them too.
SECTION: ReportSection[None] = ReportSection(
    key="context", place=130, shown=context_section, after=model_cards
)
