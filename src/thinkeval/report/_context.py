"""The circumstances of each run: settings, endpoints, served cards, dates, data and scorers.

Everything comes from the run directory (config.json as `RunRecord`, models/<model>.json,
samples/, the journal's timestamps), so a report says how its numbers were obtained without
asking anyone. Credentials never get through: URLs lose their user:password part and the values
of query parameters that look like keys.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from thinkeval.config import ModelConfig
from thinkeval.errors import JournalError
from thinkeval.report._cells import RunData
from thinkeval.report._model import ModelContext, RunContext, TaskContext
from thinkeval.scoring.scorers import recording_scorers
from thinkeval.store.run_record import TaskRecord
from thinkeval.store.rundir import MODELS_DIR, SAMPLES_DIR, read_json
from thinkeval.urls import redact_url

UNKNOWN = "unknown"
# The card field `thinkeval sim` adds to its /v1/models card: the model is simulated.
SIMULATED_FIELD = "thinkeval_simulated"


def _redacted(value: Any) -> Any:
    """A card with every URL in it redacted (a card is whatever the server sent)."""
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        return redact_url(value)
    return value


def utc(timestamp: float) -> str | None:
    """`2025-06-15 10:00:00 UTC` for a unix time; None for no time."""
    if timestamp in (float("inf"), float("-inf")):
        return None
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _card(run_dir: Path, model: str) -> dict[str, Any] | None:
    path = run_dir / MODELS_DIR / f"{model}.json"
    if not path.is_file():
        return None
    card = read_json(path)
    if not isinstance(card, dict):
        raise JournalError(f"{path}: not a JSON object; expected the server's /v1/models card")
    redacted: dict[str, Any] = _redacted(card)
    return redacted


def _model(run: RunData, model: ModelConfig) -> ModelContext:
    card = _card(run.path, model.name)
    settings = {
        "api": model.api,
        "stream": model.stream,
        "concurrency": model.concurrency,
        "request_rate": model.request_rate,
        "timeout_s": model.timeout_s,
        "max_retries": model.max_retries,
    }
    return ModelContext(
        model=model.name,
        served_as=model.served_model,
        endpoints=[redact_url(url) for url in model.base_urls],
        generation=model.generation_settings.as_dict(),
        settings=settings,
        card=card,
        simulated=bool(card and card.get(SIMULATED_FIELD) is True),
    )


def _task(run: RunData, task: TaskRecord) -> TaskContext:
    resolved = run.record.task(task.name)
    with (run.path / SAMPLES_DIR / f"{task.name}.jsonl").open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return TaskContext(
        task=task.name,
        samples=len(run.samples[task.name]),
        budgets=run.budgets[task.name],
        repeats=run.repeats[task.name],
        selection=resolved.selection,
        generation=resolved.recommended.overridden_by(resolved.generation).as_dict(),
        samples_sha256=digest,
        source=task.source or UNKNOWN,
        version=task.version or UNKNOWN,
        scoring=task.scoring or UNKNOWN,
        scorers=", ".join(
            f"{scorer.name} {scorer.version_for(resolved.spec)}" for scorer in recording_scorers()
        ),
        digest=task.digest or UNKNOWN,
    )


def run_context(run: RunData) -> RunContext:
    """One run's circumstances, read from its directory."""
    record = run.record
    return RunContext(
        name=run.name,
        path=str(run.path),
        started=utc(run.first_start),
        ended=utc(run.last_end),
        thinkeval_version=record.thinkeval_version or UNKNOWN,
        data_dir=record.data_dir,
        scorer_versions=sorted(run.scorer_versions),
        judges=list(run.judge_models),
        models=[_model(run, model) for model in record.models],
        tasks=[_task(run, task) for task in record.tasks],
    )
