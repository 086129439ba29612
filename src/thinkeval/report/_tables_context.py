"""Section 8 as tables: how each run was made (settings, endpoints, cards, dates, data)."""

from __future__ import annotations

import json
from typing import Any

from thinkeval.report._format import Block, Section, table
from thinkeval.report._model import ModelContext, Report, RunContext

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


def _run_blocks(context: RunContext, scorer_version: str) -> list[Block]:
    versions = ", ".join(context.scorer_versions) or "none recorded"
    facts = (
        f"Ran from {context.started or 'unknown'} to {context.ended or 'unknown'} (the journal's "
        "first request sent and last reply received).",
        f"thinkeval that wrote summary.json: {context.thinkeval_version}; scorer versions "
        f"recorded with the replies: {versions}; this report re-scored every reply with scorer "
        f"version {scorer_version}.",
        f"Data directory: {context.data_dir or 'unknown (the hub, or not recorded)'}.",
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
            )
        ),
        Block(
            table=table(
                ("task", "samples", "selection", "source", "version", "digest", "samples sha256"),
                [
                    (
                        t.task,
                        str(t.samples),
                        t.selection,
                        t.source,
                        t.version,
                        t.digest,
                        t.samples_sha256,
                    )
                    for t in context.tasks
                ],
                text_columns=7,
            )
        ),
    ]


def context_section(report: Report) -> Section:
    blocks = [b for context in report.context for b in _run_blocks(context, report.scorer_version)]
    return Section(
        "context",
        "8. Run context",
        "How each run was made, read from its directory: the generation settings sent with "
        "every request, the endpoints (credentials removed), each model's /v1/models card as "
        "the run saw it at the start, when the run sent its first request and received its "
        "last reply, and the samples asked (the SHA-256 of samples/<task>.jsonl identifies "
        "exactly what was asked; source, version and digest are 'unknown' where the run did not "
        "record them). A model is marked simulated when its card says it was served by "
        "thinkeval sim.",
        blocks,
    )
