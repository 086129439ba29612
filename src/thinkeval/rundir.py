"""The run directory: where every file of a run lives, and how it is written.

```
runs/<run>/
  config.json          resolved config (no secrets, URLs redacted)
  samples/<task>.jsonl the samples asked: id, messages, gold (so reports never reload datasets)
  models/<model>.json  each model's /v1/models card as seen at start
  journal/*.jsonl      one append-only attempt log per writer (see journal.py)
  status/<writer>.json each live writer's heartbeat: pid, state, requests in flight, last error
  summary.json         the results (results.py)
```
Small files are written atomically (temp file + rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from .config import RunConfig
from .errors import JournalError
from .records import Sample

CONFIG_FILE = "config.json"
SUMMARY_FILE = "summary.json"
SAMPLES_DIR = "samples"
MODELS_DIR = "models"
STATUS_DIR = "status"
# Settings that change what a recorded attempt means: a resumed run must keep them.
_FROZEN_KEYS = ("budgets",)
_FROZEN_MODEL_KEYS = ("model", "generation", "stream")


def run_dir_for(config: RunConfig, output: str | Path | None) -> Path:
    """`--output DIR` when given, else `runs/<run>`."""
    return Path(output) if output is not None else Path("runs") / config.run


def write_atomic(path: Path, data: bytes | Iterable[bytes], durable: bool = True) -> None:
    """Replace `path` with `data` so that readers see the old or the new file, never half.

    `data` may be an iterable of chunks, written as they come: large files never sit in memory.
    `durable=False` skips the fsync, for files that are rewritten every few seconds anyway.
    """
    chunks = [data] if isinstance(data, bytes) else data
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide results from teammates
            with os.fdopen(fd, "wb") as handle:
                for chunk in chunks:
                    handle.write(chunk)
                handle.flush()
                if durable:
                    os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise JournalError(f"{path}: cannot write ({exc.strerror})") from None


def write_json(path: Path, data: Any, durable: bool = True) -> None:
    options = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
    write_atomic(path, orjson.dumps(data, option=options) + b"\n", durable)


def read_json(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise JournalError(f"{path}: not found; is this a thinkeval run directory?") from None
    except orjson.JSONDecodeError as exc:
        raise JournalError(f"{path}: not valid JSON ({exc})") from None


def check_resumable(run_dir: Path, config: RunConfig) -> None:
    """Refuse to resume a run whose recorded settings differ from the config's.

    Adding models or tasks is fine; changing budgets or what a model is asked is not, because
    the recorded attempts would then mean something else.
    """
    path = run_dir / CONFIG_FILE
    if not path.exists():
        return
    old = read_json(path)
    new = config.public_dict()
    for key in _FROZEN_KEYS:
        if old.get(key) != new.get(key):
            raise JournalError(
                f"{path}: this run was started with {key} {old.get(key)}, the config now says "
                f"{new.get(key)}; use a new run name or --output DIR"
            )
    old_models = {m["name"]: m for m in old.get("models", [])}
    for model in new["models"]:
        before = old_models.get(model["name"])
        if before is None:
            continue
        for key in _FROZEN_MODEL_KEYS:
            if before.get(key) != model.get(key):
                raise JournalError(
                    f"{path}: model {model['name']!r} was run with {key} = {before.get(key)!r}, "
                    f"the config now says {model.get(key)!r}; use a new run name or --output DIR"
                )


def write_config(run_dir: Path, config: RunConfig) -> None:
    """Store the resolved config, keeping models recorded earlier that this config omits."""
    path = run_dir / CONFIG_FILE
    data = config.public_dict()
    if path.exists():
        old = read_json(path)
        names = {m["name"] for m in data["models"]}
        data["models"] = [m for m in old.get("models", []) if m["name"] not in names] + data[
            "models"
        ]
        task_names = {t["name"] for t in data["tasks"]}
        data["tasks"] = [t for t in old.get("tasks", []) if t["name"] not in task_names] + data[
            "tasks"
        ]
    write_json(path, data)


def sample_to_json(sample: Sample) -> dict[str, Any]:
    return {
        "id": sample.id,
        "task": sample.task,
        "subset": sample.subset,
        "gold": sample.gold,
        "messages": list(sample.messages),
    }


def _shared_prefix(samples: list[Sample]) -> tuple[dict[str, str], ...]:
    """The leading messages every sample has (GSM8K's few-shot exemplars), else ()."""
    if len(samples) < 2:
        return ()
    first = samples[0].messages[:-1]
    length = len(first)
    for sample in samples[1:]:
        while length and sample.messages[:length] != first[:length]:
            length -= 1
        if not length:
            return ()
    return first[:length]


def write_samples(run_dir: Path, task: str, samples: list[Sample]) -> None:
    """Write the samples, their shared leading messages (few-shot exemplars) stored once.

    Line 1 is `{"shared_messages": [...]}`; each sample line then holds only its own messages.
    """
    prefix = _shared_prefix(samples)

    def lines() -> Iterator[bytes]:
        yield orjson.dumps({"shared_messages": list(prefix)}) + b"\n"
        for sample in samples:
            row = sample_to_json(sample)
            row["messages"] = row["messages"][len(prefix) :]
            yield orjson.dumps(row) + b"\n"

    write_atomic(run_dir / SAMPLES_DIR / f"{task}.jsonl", lines())


def read_samples(run_dir: Path, task: str, messages: bool = True) -> list[Sample]:
    """The samples a run asked for `task`, as recorded at its start.

    With `messages=False` the prompts are left out (`Sample.messages` is empty): counting
    results needs only ids, golds and subsets, and a large run's prompts are most of its size.
    """
    path = run_dir / SAMPLES_DIR / f"{task}.jsonl"
    samples = []
    prefix: tuple[dict[str, str], ...] = ()
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise JournalError(f"{path}: not found; is this a thinkeval run directory?") from None
    with handle:
        for number, line in enumerate(handle, 1):
            try:
                row = orjson.loads(line)
                if number == 1 and "shared_messages" in row:
                    prefix = tuple(row["shared_messages"])
                    continue
                samples.append(
                    Sample(
                        id=row["id"],
                        task=row["task"],
                        messages=(*prefix, *row["messages"]) if messages else (),
                        gold=row["gold"],
                        subset=row.get("subset"),
                    )
                )
            except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
                raise JournalError(
                    f"{path}:{number}: not a valid sample record ({exc})"
                ) from None
    return samples


def recorded_tasks(run_dir: Path) -> list[str]:
    folder = run_dir / SAMPLES_DIR
    return sorted(p.stem for p in folder.glob("*.jsonl")) if folder.is_dir() else []


def write_model_card(run_dir: Path, model: str, card: dict[str, Any]) -> None:
    write_json(run_dir / MODELS_DIR / f"{model}.json", card)
