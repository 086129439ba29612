"""The filtered samples as JSONL or CSV, whole: one record per model reply.

The fields are those the report page's own export writes (report/page_export.js), so a file from
`thinkeval view` and one from a report.html differ only where the HTML file shortened long texts
(and says so with `"shortened": true`). Every recording scorer beside strict has its fields, by
name: `NAME_adaptive_correct` per record and `NAME` (its verdict) per reply, so the built-in
scorers' are `lenient_adaptive_correct` and `lenient`, as before scorers were keyed by name.

A gold over 1,024 characters (a code task's tests: megabytes for a LiveCodeBench problem) is
written as a reference, as the sample index holds it (`report._golds.shown_gold`): its start,
length and digest, and the run's samples file that has it whole; `full_golds` writes it whole.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from thinkeval.report._model_samples import Judgement, ReplyView, Text
from thinkeval.report._samples import Catalog, Limits

WHOLE = Limits(reasoning=None, content=None, prompt=None)
_HEAD = (
    "model",
    "task",
    "sample_id",
    "repeat",
    "subject",
    "gold",
    "fixed_verdict",
    "adaptive_verdict",
)
_TAIL = (
    "fixed_answer",
    "fixed_finish_reason",
    "fixed_completion_tokens",
    "fixed_latency_s",
    "fixed_error",
    "fixed_judge_verdict",
    "fixed_judge_answer",
    "retry_verdict",
    "retry_answer",
    "retry_finish_reason",
    "retry_completion_tokens",
    "retry_latency_s",
    "retry_error",
    "retry_judge_verdict",
    "retry_judge_answer",
    "fixed_content",
    "retry_content",
)


def csv_columns(scorers: Sequence[str]) -> tuple[str, ...]:
    """The CSV header with `scorers` (the recording scorers beside strict) in effect."""
    return (*_HEAD, *(f"{name}_adaptive_correct" for name in scorers), *_TAIL)


CSV_COLUMNS = csv_columns(("lenient",))  # with the built-in scorers
BATCH = 200  # rows read and written at a time
CHUNK_CHARS = 8_000_000  # ... or fewer, once their golds hold this many characters


def _text(value: Text | None) -> str | None:
    if isinstance(value, tuple):  # never with WHOLE; kept for symmetry with the page
        return f"{value[0]}\n… {value[1]} characters omitted …\n{value[2]}"
    return value


def _judgement(verdict: Judgement | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {"status": verdict.status, "answer": verdict.answer, "rule": verdict.rule}


def _judge(verdict: Judgement | None) -> dict[str, Any] | None:
    """The judge scorer's reading; its rule is the judge's model id."""
    if verdict is None:
        return None
    return {"status": verdict.status, "answer": verdict.answer, "model": verdict.rule}


def _reply(view: ReplyView, scorers: Sequence[str]) -> dict[str, Any]:
    return {
        "phase": view.phase,
        "max_tokens": view.max_tokens,
        "finish_reason": view.finish_reason,
        "completion_tokens": view.completion_tokens,
        "reasoning_tokens": view.reasoning_tokens,
        "latency_s": view.latency_s,
        "ttft_s": view.ttft_s,
        "error": view.error,
        "strict": _judgement(view.strict),
        **{name: _judgement(view.verdicts.get(name)) for name in scorers},
        "judge": _judge(view.judge),
        "content": _text(view.content),
        "reasoning": _text(view.reasoning),
    }


def record(catalog: Catalog, row: int, full_golds: bool = False) -> dict[str, Any]:
    """One model reply to one sample, with every counted reply's texts whole (and a long gold
    by reference unless `full_golds`)."""
    columns = catalog.columns
    question = int(catalog.row_question[row])
    subject = int(catalog.question_subject[question])
    view, _ = catalog.question_view(question, WHOLE)
    bits = int(columns["row_scorers"][row])
    return {
        "model": catalog.models[int(catalog.row_model[row])],
        "task": catalog.tasks[int(catalog.question_task[question])],
        "sample_id": catalog.question_id[question],
        "repeat": int(catalog.row_repeat[row]),
        "subject": catalog.subjects[subject] if subject >= 0 else None,
        "gold": catalog.whole_gold(question) if full_golds else catalog.question_gold[question],
        "fixed_verdict": catalog.statuses[int(columns["row_fixed"][row])],
        "adaptive_verdict": catalog.statuses[int(columns["row_final"][row])],
        **{
            f"{name}_adaptive_correct": bool(bits >> (2 * i + 1) & 1)
            for i, name in enumerate(catalog.scorers)
        },
        "prompt": _text(view.prompt),
        "replies": [_reply(reply, catalog.scorers) for reply in catalog.reply_views(row, WHOLE)],
        "shortened": False,
    }


def flat(entry: dict[str, Any], columns: Sequence[str] = CSV_COLUMNS) -> dict[str, Any]:
    """A record as one CSV line's values (the reasoning and the prompt stay out)."""
    out = {key: entry[key] for key in columns[: columns.index(_TAIL[0])]}
    for phase in ("fixed", "retry"):
        reply = next((r for r in entry["replies"] if r["phase"] == phase), None)
        verdict = reply["strict"] if reply else None
        latency = reply["latency_s"] if reply else None
        out[f"{phase}_verdict"] = (verdict["status"] if verdict else "error") if reply else None
        out[f"{phase}_answer"] = verdict["answer"] if verdict else None
        out[f"{phase}_finish_reason"] = reply["finish_reason"] if reply else None
        out[f"{phase}_completion_tokens"] = reply["completion_tokens"] if reply else None
        out[f"{phase}_latency_s"] = f"{latency:.3f}" if latency is not None else None
        out[f"{phase}_error"] = reply["error"] if reply else None
        judge = reply["judge"] if reply else None
        out[f"{phase}_judge_verdict"] = judge["status"] if judge else None
        out[f"{phase}_judge_answer"] = judge["answer"] if judge else None
        out[f"{phase}_content"] = reply["content"] if reply else None
    return out


def _csv_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


def _csv_lines(rows: list[list[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerows([[_csv_value(v) for v in row] for row in rows])
    return buffer.getvalue().encode("utf-8")


def _batches(catalog: Catalog, rows: list[int], full_golds: bool) -> Iterator[list[dict[str, Any]]]:
    """The records of `rows`, `BATCH` at a time, or fewer once their golds pass `CHUNK_CHARS`
    (whole code tests are megabytes each)."""
    batch: list[dict[str, Any]] = []
    chars = 0
    for row in rows:
        entry = record(catalog, row, full_golds)
        batch.append(entry)
        chars += len(entry["gold"])
        if len(batch) >= BATCH or chars >= CHUNK_CHARS:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def export(
    catalog: Catalog, rows: list[int], fmt: str, full_golds: bool = False
) -> Iterator[bytes]:
    """The rows as JSONL or CSV, in chunks of `BATCH` records; a long gold by reference unless
    `full_golds`."""
    encoder = msgspec.json.Encoder()
    columns = csv_columns(catalog.scorers)
    if fmt == "csv":
        yield _csv_lines([list(columns)])
    for records in _batches(catalog, rows, full_golds):
        if fmt == "jsonl":
            yield b"".join(encoder.encode(entry) + b"\n" for entry in records)
        else:
            yield _csv_lines([[flat(entry, columns)[key] for key in columns] for entry in records])
