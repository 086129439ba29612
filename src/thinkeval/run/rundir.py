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

import itertools
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from thinkeval.config import RunConfig
from thinkeval.errors import JournalError
from thinkeval.records import Sample

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


def write_samples(run_dir: Path, task: str, samples: Iterable[Sample]) -> int:
    """Write the samples as they stream in; return how many were written.

    Line 1 is `{"shared_messages": [...]}`: the first sample's leading messages (GSM8K's
    few-shot exemplars), stored once. A sample line holds only the messages after them, or all
    of its messages and `"shared": false` when it does not start with them.
    """
    stream = iter(samples)
    first = next(stream, None)
    prefix = first.messages[:-1] if first is not None else ()
    written = 0

    def lines() -> Iterator[bytes]:
        nonlocal written
        yield orjson.dumps({"shared_messages": list(prefix)}) + b"\n"
        if first is None:
            return
        for sample in itertools.chain((first,), stream):
            row = sample_to_json(sample)
            if sample.messages[: len(prefix)] == prefix:
                row["messages"] = row["messages"][len(prefix) :]
            else:
                row["shared"] = False
            written += 1
            yield orjson.dumps(row) + b"\n"

    write_atomic(run_dir / SAMPLES_DIR / f"{task}.jsonl", lines())
    return written


class SamplesFile:
    """The samples a run asked for one task: streamed in order, or read back one by offset.

    A long run keeps only offsets in memory and reads each prompt when its request is sent.

    >>> with SamplesFile(run_dir, "gsm8k") as samples:
    ...     for offset, sample in samples:
    ...         assert samples.at(offset) == sample
    """

    def __init__(self, run_dir: Path, task: str, messages: bool = True) -> None:
        self.path = run_dir / SAMPLES_DIR / f"{task}.jsonl"
        self.messages = messages
        try:
            self._handle = self.path.open("rb")
        except FileNotFoundError:
            raise JournalError(
                f"{self.path}: not found; is this a thinkeval run directory?"
            ) from None
        first = self._handle.readline()
        self._start = len(first)
        self._prefix: tuple[dict[str, str], ...] = ()
        row = self._parse(first, 1) if first else {}
        if "shared_messages" in row:
            self._prefix = tuple(row["shared_messages"])
        else:
            self._start = 0  # written before the shared line existed: every line is a sample

    def __enter__(self) -> SamplesFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._handle.close()

    def __iter__(self) -> Iterator[tuple[int, Sample]]:
        """`(offset, sample)` for each sample, in order; reads through its own file handle."""
        with self.path.open("rb") as handle:
            handle.seek(self._start)
            offset = self._start
            number = 1 if self._start == 0 else 2
            for line in handle:
                yield offset, self._sample(line, number)
                offset += len(line)
                number += 1

    def at(self, offset: int) -> Sample:
        """The sample whose line starts at byte `offset` (as `__iter__` gave it)."""
        self._handle.seek(offset)
        return self._sample(self._handle.readline(), None)

    def _parse(self, line: bytes, number: int | None) -> dict[str, Any]:
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise self._invalid(number, str(exc)) from None
        if not isinstance(row, dict):
            raise self._invalid(number, "not a JSON object")
        return row

    def _invalid(self, number: int | None, problem: str) -> JournalError:
        where = f"{self.path}:{number}" if number is not None else str(self.path)
        return JournalError(f"{where}: not a valid sample record ({problem})")

    def _sample(self, line: bytes, number: int | None) -> Sample:
        row = self._parse(line, number)
        try:
            if not self.messages:
                messages: tuple[dict[str, str], ...] = ()
            elif row.get("shared", True):
                messages = (*self._prefix, *row["messages"])
            else:
                messages = tuple(row["messages"])
            return Sample(
                id=row["id"],
                task=row["task"],
                messages=messages,
                gold=row["gold"],
                subset=row.get("subset"),
            )
        except KeyError as exc:
            raise self._invalid(number, f"missing {exc}") from None
        except TypeError as exc:
            raise self._invalid(number, str(exc)) from None


def read_samples(run_dir: Path, task: str, messages: bool = True) -> list[Sample]:
    """The samples a run asked for `task`, as recorded at its start.

    With `messages=False` the prompts are left out (`Sample.messages` is empty): counting
    results needs only ids, golds and subsets, and a large run's prompts are most of its size.
    """
    with SamplesFile(run_dir, task, messages) as samples:
        return [sample for _, sample in samples]


def recorded_tasks(run_dir: Path) -> list[str]:
    folder = run_dir / SAMPLES_DIR
    return sorted(p.stem for p in folder.glob("*.jsonl")) if folder.is_dir() else []


def write_model_card(run_dir: Path, model: str, card: dict[str, Any]) -> None:
    write_json(run_dir / MODELS_DIR / f"{model}.json", card)
