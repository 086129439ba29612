"""Reading an AISBench output folder: its prediction files and their records.

AISBench (`outputs/default/<timestamp>/`) keeps one prediction file per model and dataset:

```
predictions/<model>/<dataset>.jsonl     one record a line: id, origin_prompt, prediction, gold, ...
predictions/<model>/<dataset>.json      older layout: {"0": {origin_prompt, prediction, gold}, ...}
predictions/<model>/<dataset>_failed.jsonl   requests that failed: id, input, error_info
configs/*.py                            the config dump (optional): max_out_len, generation_kwargs
```
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from thinkeval.errors import ThinkevalError
from thinkeval.inputs import open_regular, reason

CLOSE_THINK = "</think>"
OPEN_THINK = "<think>"


class AisbenchError(ThinkevalError):
    """An AISBench folder or file that cannot be imported; the message names the file."""


def split_prediction(text: str | None, thinking: bool = True) -> tuple[str | None, str | None]:
    """`(content, reasoning)` of an AISBench prediction.

    AISBench stores `reasoning + "</think>" + content`, the reasoning alone when the content was
    empty (no `</think>` then), or the raw text with its think tags. So a prediction is split at
    its last `</think>`; without one, a thinking model's prediction is its reasoning alone (the
    content was empty), and a non-thinking model's is its content, unless it opens with a raw
    `<think>` (cut inside the reasoning).

    >>> split_prediction("<think>2+2</think>The answer is 4")
    ('The answer is 4', '2+2')
    >>> split_prediction("Okay, 2+2 is 4, so")
    (None, 'Okay, 2+2 is 4, so')
    >>> split_prediction("The answer is 4", thinking=False)
    ('The answer is 4', None)
    """
    if text is None:
        return None, None
    end = text.rfind(CLOSE_THINK)
    if end >= 0:
        reasoning = text[:end].lstrip().removeprefix(OPEN_THINK)
        return text[end + len(CLOSE_THINK) :] or None, reasoning or None
    if thinking or text.lstrip().startswith(OPEN_THINK):
        return None, text.lstrip().removeprefix(OPEN_THINK) or None
    return text or None, None


@dataclass(frozen=True)
class Record:
    """One AISBench record, reduced to what the import reads."""

    index: int  # position within the dataset (C-Eval: within the subject)
    where: str  # "FILE line N" or "FILE key K", for error messages
    source: str  # the file, relative to the AISBench folder
    key: str  # the record's id or key in its file
    prediction: str | None = None
    gold: Any = None
    prompt: Any = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    error: str | None = None  # set for a failed request


def find_output_dir(path: Path) -> Path:
    """The AISBench run folder at `path`: it, or its only child holding `predictions/`."""
    if (path / "predictions").is_dir():
        return path
    if not path.is_dir():
        raise AisbenchError(f"{path}: not found or not a directory")
    runs = sorted(child for child in path.iterdir() if (child / "predictions").is_dir())
    if len(runs) == 1:
        return runs[0]
    if runs:
        names = ", ".join(run.name for run in runs)
        raise AisbenchError(f"{path} holds several AISBench runs ({names}); pass one of them")
    raise AisbenchError(
        f"{path}: not an AISBench output folder (expected predictions/<model>/<dataset>.jsonl "
        "inside, as in outputs/default/<timestamp>/)"
    )


def find_model_dir(output_dir: Path, model: str | None) -> Path:
    """`predictions/<model>/`: the one named, or the only one there is."""
    folder = output_dir / "predictions"
    models = sorted(child.name for child in folder.iterdir() if child.is_dir())
    if model is not None:
        if model not in models:
            raise AisbenchError(
                f"{folder}: no predictions of model {model!r}; found {', '.join(models) or 'none'}"
            )
        return folder / model
    if len(models) == 1:
        return folder / models[0]
    if not models:
        raise AisbenchError(f"{folder}: no model folders inside; did the AISBench run infer?")
    raise AisbenchError(
        f"{folder} holds predictions of several models ({', '.join(models)}); pick one with --model"
    )


def dataset_files(model_dir: Path) -> Iterator[tuple[Path, str, bool]]:
    """`(file, dataset name, is the failed-requests file)` for each prediction file."""
    for path in sorted(model_dir.iterdir()):
        # Only folders are passed over: a prediction file that cannot be read (a FIFO, a symlink
        # loop) is refused when read, never silently left out of the import.
        if path.is_dir() or path.suffix not in (".json", ".jsonl"):
            continue
        if path.name.startswith("tmp_"):
            continue  # AISBench's working cache, left for debugging; the final files hold it all
        stem = path.stem
        if stem.endswith("_details"):
            raise AisbenchError(
                f"{path}: performance-mode output (no predictions to import); import the "
                "folder of an accuracy run"
            )
        failed = stem.endswith("_failed")
        yield path, stem.removesuffix("_failed") if failed else stem, failed


def _read_text(path: Path) -> str:
    try:
        with open_regular(path) as handle:  # a FIFO or device in the folder is refused, not read
            return handle.read().decode("utf-8-sig")
    except OSError as exc:
        raise AisbenchError(f"{path}: cannot read ({reason(exc)})") from None
    except UnicodeDecodeError as exc:
        raise AisbenchError(f"{path}: not valid UTF-8 ({exc.reason})") from None


def _raw_records(path: Path) -> Iterator[tuple[str, str, dict[str, Any], int]]:
    """`(where, key, record, position)` for each record of a .json or .jsonl file."""
    text = _read_text(path)
    if path.suffix == ".jsonl":
        position = 0
        for number, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise AisbenchError(
                    f"{where}: not valid JSON ({exc}); the line is torn or truncated. Re-run "
                    "AISBench for this dataset, or delete the line: its sample is then asked "
                    "at the fixed budget by the next `thinkeval run`"
                ) from None
            if not isinstance(row, dict):
                raise AisbenchError(f"{where}: expected a JSON object, got {type(row).__name__}")
            key = row.get("id", position)
            yield where, str(key), row, position
            position += 1
        return
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise AisbenchError(
            f"{path}: not valid JSON ({exc}); the file is torn or truncated"
        ) from None
    if isinstance(data, dict):
        items = list(data.items())
    elif isinstance(data, list):
        items = list(enumerate(data))
    else:
        raise AisbenchError(f'{path}: expected a JSON object keyed by index, like {{"0": ...}}')
    for position, (key, row) in enumerate(items):
        where = f"{path} key {key!r}"
        if not isinstance(row, dict):
            raise AisbenchError(f"{where}: expected a JSON object, got {type(row).__name__}")
        yield where, str(key), row, position


def _index(key: str, where: str) -> int:
    try:
        index = int(key)
    except ValueError:
        raise AisbenchError(f"{where}: id {key!r} is not a dataset index") from None
    if index < 0:
        raise AisbenchError(f"{where}: id {key!r} is not a dataset index")
    return index


def _tokens(value: Any) -> int | None:
    # AISBench writes 0 when it did not count; a real reply has at least one token.
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _prediction(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], (str, type(None))):
        return value[0]
    raise AisbenchError(
        f"{where}: 'prediction' is {type(value).__name__}, not one text (several samples per "
        "question are not supported)"
    )


def read_records(path: Path, root: Path, failed: bool) -> list[Record]:
    """The records of one prediction file (or failed-requests file), lenient on extra fields."""
    source = str(path.relative_to(root))
    records = []
    for where, key, row, _ in _raw_records(path):
        index = _index(key, where)
        error = None
        if failed or row.get("success") is False:
            error = str(row.get("error_info") or "AISBench recorded this request as failed")
        records.append(
            Record(
                index=index,
                where=where,
                source=source,
                key=key,
                prediction=None if error else _prediction(row.get("prediction"), where),
                gold=row.get("gold"),
                prompt=row.get("origin_prompt", row.get("input")),
                input_tokens=_tokens(row.get("input_tokens")),
                output_tokens=_tokens(row.get("output_tokens")),
                error=error,
            )
        )
    return records
