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

import hashlib
import itertools
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
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
VERDICTS_DIR = "verdicts"  # scorers that run after the fact (the LLM judge) write here
JUDGE_FILE = "judge.jsonl"


def judge_path(run_dir: Path) -> Path:
    """The judge scorer's verdicts (`thinkeval judge`), beside the journals."""
    return run_dir / VERDICTS_DIR / JUDGE_FILE


def run_dir_for(config: RunConfig, output: str | Path | None) -> Path:
    """`--output DIR` when given, else `runs/<run>`."""
    return Path(output) if output is not None else Path("runs") / config.run


def write_atomic(
    path: Path,
    data: bytes | Iterable[bytes],
    durable: bool = True,
    before_replace: Callable[[Path], None] | None = None,
) -> None:
    """Replace `path` with `data` so that readers see the old or the new file, never half.

    `data` may be an iterable of chunks, written as they come: large files never sit in memory.
    `durable=False` skips the fsync, for files that are rewritten every few seconds anyway.
    `before_replace(temp_path)` runs when everything is written; if it raises, `path` is left
    as it was.
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
            if before_replace is not None:
                before_replace(Path(tmp))
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


def sample_to_json(sample: Sample) -> dict[str, Any]:
    row = {
        "id": sample.id,
        "task": sample.task,
        "subset": sample.subset,
        "gold": sample.gold,
        "messages": list(sample.messages),
    }
    if sample.tools:  # a tool-calling task's functions; other tasks' lines stay as they were
        row["tools"] = list(sample.tools)
    return row


def samples_digest(run_dir: Path, task: str) -> str:
    """The digest of `samples/<task>.jsonl` as it is now, as `write_samples` returns it."""
    digest = hashlib.sha256()
    with (run_dir / SAMPLES_DIR / f"{task}.jsonl").open("rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()[:16]


class PromptsChanged(JournalError):
    """A resumed run would ask other prompts than the ones its attempts answer."""


def write_samples(
    run_dir: Path, task: str, samples: Iterable[Sample], expect_digest: str | None = None
) -> tuple[int, str]:
    """Write the samples as they stream in; return how many were written and their digest.

    The digest is of the file's bytes, which hold exactly what is asked (ids, messages, golds,
    in order). When `expect_digest` is given and the new samples differ, the file recorded
    before is kept and `PromptsChanged` says where they first differ.

    Line 1 is `{"shared_messages": [...]}`: the first sample's leading messages (GSM8K's
    few-shot exemplars), stored once. A sample line holds only the messages after them, or all
    of its messages and `"shared": false` when it does not start with them.
    """
    stream = iter(samples)
    first = next(stream, None)
    prefix = first.messages[:-1] if first is not None else ()
    digest = hashlib.sha256()
    written = 0
    path = run_dir / SAMPLES_DIR / f"{task}.jsonl"

    def lines() -> Iterator[bytes]:
        nonlocal written
        for line in _sample_lines(first, stream, prefix):
            digest.update(line)
            written += 1
            yield line
        written -= 1  # the first line holds the shared messages

    def check(new_path: Path) -> None:
        if expect_digest is not None and digest.hexdigest()[:16] != expect_digest:
            raise PromptsChanged(_first_difference(path, new_path, written))

    write_atomic(path, lines(), before_replace=check)
    return written, digest.hexdigest()[:16]


def _sample_lines(
    first: Sample | None, rest: Iterator[Sample], prefix: tuple[dict[str, str], ...]
) -> Iterator[bytes]:
    yield orjson.dumps({"shared_messages": list(prefix)}) + b"\n"
    if first is None:
        return
    for sample in itertools.chain((first,), rest):
        row = sample_to_json(sample)
        if sample.messages[: len(prefix)] == prefix:
            row["messages"] = row["messages"][len(prefix) :]
        else:
            row["shared"] = False
        yield orjson.dumps(row) + b"\n"


def _first_difference(old_path: Path, new_path: Path, new_count: int) -> str:
    """Where the recorded samples and the new ones first differ, in words."""
    # Only called when the digests differ, so a second pass over both files is affordable.
    with SamplesFile(old_path) as old, SamplesFile(new_path) as new:
        pairs = itertools.zip_longest((sample for _, sample in old), (sample for _, sample in new))
        for position, (before, now) in enumerate(pairs):
            if before is None:
                return f"{new_count - position} sample(s) more than the {position} recorded"
            if now is None:
                return f"{new_count} sample(s) now, more were recorded"
            if before.id != now.id:
                return f"sample {position + 1} was {before.id}, is now {now.id}"
            if before.gold != now.gold:
                return f"{now.id}: gold {before.gold!r} is now {now.gold!r}"
            if before.messages != now.messages:
                return f"{now.id}: its prompt changed"
    return "the same samples, recorded differently"


class SamplesFile:
    """The samples a run asked for one task: streamed in order, or read back one by offset.

    A long run keeps only offsets in memory and reads each prompt when its request is sent.

    >>> with SamplesFile(run_dir, "gsm8k") as samples:
    ...     for offset, sample in samples:
    ...         assert samples.at(offset) == sample
    """

    def __init__(self, run_dir: Path, task: str | None = None, messages: bool = True) -> None:
        # Without a task, `run_dir` is the samples file itself.
        self.path = run_dir if task is None else run_dir / SAMPLES_DIR / f"{task}.jsonl"
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
                tools=tuple(row.get("tools", ())) if self.messages else (),
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
