"""The circumstances of each run: settings, endpoints, served cards, dates, data and scorers.

Everything comes from the run directory (config.json, models/<model>.json, samples/, the
journal's timestamps, summary.json), so a report says how its numbers were obtained without
asking anyone. Credentials never get through: URLs lose their user:password part and the values
of query parameters that look like keys.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from thinkeval.config import redact_url
from thinkeval.errors import JournalError
from thinkeval.report._collect import RunData
from thinkeval.report._model import ModelContext, RunContext, TaskContext
from thinkeval.run.rundir import MODELS_DIR, SAMPLES_DIR, SUMMARY_FILE, read_json

UNKNOWN = "unknown"
# The card field `thinkeval sim` adds to its /v1/models card: the model is simulated.
SIMULATED_FIELD = "thinkeval_simulated"
_SECRET_PARAM = re.compile(r"key|token|secret|passw|auth|sig|credential", re.IGNORECASE)
_SETTINGS = ("stream", "concurrency", "request_rate", "timeout_s", "max_retries")


def redact(url: str) -> str:
    """`url` without credentials: no user:password, and `***` for key-like query values.

    >>> redact("https://user:pw@host/v1?api_key=abc&x=1")
    'https://***@host/v1?api_key=%2A%2A%2A&x=1'
    """
    url = redact_url(url)
    parts = urlsplit(url)
    if not parts.query:
        return url
    query = [
        (name, "***" if _SECRET_PARAM.search(name) else value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urlunsplit(parts._replace(query=urlencode(query)))


def _redacted(value: Any) -> Any:
    """A card with every URL in it redacted (a card is whatever the server sent)."""
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        return redact(value)
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
    return _redacted(card)


def _model(run: RunData, entry: dict[str, Any]) -> ModelContext:
    name = str(entry["name"])
    urls = entry.get("base_url") or []
    card = _card(run.path, name)
    return ModelContext(
        model=name,
        served_as=str(entry.get("model") or name),
        endpoints=[redact(str(u)) for u in ([urls] if isinstance(urls, str) else urls)],
        generation=dict(entry.get("generation") or {}),
        settings={key: entry[key] for key in _SETTINGS if key in entry},
        card=card,
        simulated=bool(card and card.get(SIMULATED_FIELD) is True),
    )


def _selection(entry: dict[str, Any]) -> str:
    if entry.get("limit") is not None:
        return f"limit {entry['limit']}"
    if entry.get("range") is not None:
        return f"range {entry['range']}"
    return "all"


def _task(run: RunData, entry: dict[str, Any]) -> TaskContext:
    task = str(entry["name"])
    with (run.path / SAMPLES_DIR / f"{task}.jsonl").open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return TaskContext(
        task=task,
        samples=len(run.samples[task]),
        selection=_selection(entry),
        samples_sha256=digest,
        source=str(entry.get("source") or UNKNOWN),
        version=str(entry.get("version") or UNKNOWN),
        digest=str(entry.get("digest") or UNKNOWN),
    )


def run_context(run: RunData) -> RunContext:
    """One run's circumstances, read from its directory."""
    summary_path = run.path / SUMMARY_FILE
    version = UNKNOWN
    if summary_path.is_file():
        summary = read_json(summary_path)
        if isinstance(summary, dict) and summary.get("thinkeval_version"):
            version = str(summary["thinkeval_version"])
    config = run.config
    return RunContext(
        name=run.name,
        path=str(run.path),
        started=utc(run.first_start),
        ended=utc(run.last_end),
        thinkeval_version=version,
        data_dir=config.get("data_dir"),
        scorer_versions=sorted(run.scorer_versions),
        models=[_model(run, entry) for entry in config["models"]],
        tasks=[_task(run, entry) for entry in config["tasks"]],
    )
