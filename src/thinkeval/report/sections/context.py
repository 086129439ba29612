"""Section: the circumstances of each run (when, which servers, settings, cards, data), as
tables, with each model's whole /v1/models card in HTML.

Its numbers are the report's own `context` (`_context.run_context`), not the section's: the
header reads the runs' dates and simulated models from it too.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

import orjson

from thinkeval.report._format import Block, Section, table
from thinkeval.report._model import ModelContext, Report, RunContext
from thinkeval.report._section import ReportSection

# The card fields shown in the table; HTML also shows each whole card.
CARD_FIELDS = ("id", "root", "max_model_len", "owned_by")


def compact_json(value: Any) -> str:
    """`{"a": 1, "b": true}` with sorted keys, for settings shown in one cell."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def _card(model: ModelContext) -> str:
    if model.card is None:
        return "not recorded"
    shown = [f"{key} {model.card[key]}" for key in CARD_FIELDS if model.card.get(key) is not None]
    return " · ".join(shown) or "empty"


def _model_row(model: ModelContext) -> tuple[str, ...]:
    return (
        model.model,
        model.served_as,
        ", ".join(model.endpoints) or "unknown",
        compact_json(model.generation),
        compact_json(model.settings),
        _card(model),
        "yes (thinkeval sim)" if model.simulated else "no",
    )


def _run_blocks(context: RunContext) -> list[Block]:
    versions = ", ".join(context.scorer_versions) or "none recorded"
    facts: tuple[str, ...] = (
        f"Ran from {context.started or 'unknown'} to {context.ended or 'unknown'} (the journal's "
        "first request sent and last reply received).",
        f"thinkeval that started the run: {context.thinkeval_version}; scorer versions "
        f"recorded with the replies: {versions}. Recorded verdicts of the versions this report "
        "scores with (the task table's last but one column) are reused; others are scored again.",
        f"Data directory: {context.data_dir or 'unknown (the hub, or not recorded)'}.",
    )
    if context.judges:
        facts += (
            f"Judge scorer (thinkeval judge): verdicts of {', '.join(context.judges)} in "
            "verdicts/judge.jsonl.",
        )
    return [
        Block(heading=f"Run {context.name} ({context.path})"),
        Block(bullets=facts),
        Block(
            table=table(
                (
                    "model",
                    "served as",
                    "endpoints",
                    "generation",
                    "settings",
                    "served card",
                    "simulated",
                ),
                [_model_row(m) for m in context.models],
                text_columns=7,
                wrap=True,
            )
        ),
        Block(
            table=table(
                (
                    "task",
                    "samples",
                    "budgets",
                    "repeats",
                    "selection",
                    "generation",
                    "source",
                    "version",
                    "scoring",
                    "scored with",
                    "digest",
                    "samples sha256",
                ),
                [
                    (
                        t.task,
                        str(t.samples),
                        f"{t.budgets[0]}→{t.budgets[1]}",
                        str(t.repeats),
                        t.selection,
                        compact_json(t.generation),
                        t.source,
                        t.version,
                        t.scoring,
                        t.scorers,
                        t.digest,
                        t.samples_sha256,
                    )
                    for t in context.tasks
                ],
                text_columns=12,
                wrap=True,
            )
        ),
    ]


def context_section(report: Report) -> Section:
    blocks = [b for context in report.context for b in _run_blocks(context)]
    return Section(
        "context",
        "Run context",
        "How each run was made, read from its directory: the generation settings sent with "
        "every request, the endpoints (credentials removed), each model's /v1/models card as "
        "the run saw it at the start, when the run sent its first request and received its "
        "last reply, and the samples asked: the budgets and repeats of each task, its version "
        "and scoring, where its data came "
        "from, the digest of its prompts, and the SHA-256 of samples/<task>.jsonl, which "
        "identifies exactly what was asked ('unknown' where the run did not record it). A model "
        "is marked simulated when its card says it was served by "
        "thinkeval sim.",
        blocks,
    )


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


SECTION: ReportSection[None] = ReportSection(
    key="context", place=130, shown=context_section, after=model_cards
)
