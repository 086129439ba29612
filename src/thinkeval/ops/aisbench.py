"""`thinkeval import-aisbench`: an AISBench output folder as the fixed phase of a thinkeval run.

AISBench (`outputs/default/<timestamp>/`) keeps one prediction file per model and dataset:

```
predictions/<model>/<dataset>.jsonl     one record a line: id, origin_prompt, prediction, gold, ...
predictions/<model>/<dataset>.json      older layout: {"0": {origin_prompt, prediction, gold}, ...}
predictions/<model>/<dataset>_failed.jsonl   requests that failed: id, input, error_info
configs/*.py                            the config dump (optional): max_out_len, generation_kwargs
```

Each prediction becomes one fixed-phase `Attempt` at `budgets[0]`, matched to our sample by its
index within the dataset (C-Eval: within the subject) and checked against the record's gold and
prompt. AISBench keeps no finish_reason, so the verdict is judged from the text: the prediction
is split at its last `</think>`; missing or blank content is `empty`, content without a legal
final answer is `unfinished` (see `results.imported_status`), otherwise the strict verdict. A record
whose `output_tokens` reached the budget was cut by the token limit and is recorded with
finish_reason "length". Failed requests become `error` attempts, asked again by the next run.

`thinkeval run` on the written config then performs only the adaptive phase (and re-asks the
failed requests): docs/aisbench-import.md.
"""

from __future__ import annotations

import argparse
import ast
import re
import shlex
import textwrap
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import orjson
import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.config import RESERVED_GENERATION_KEYS, RunConfig, parse_config, redact_url
from thinkeval.errors import ThinkevalError
from thinkeval.ops.check import parse_budgets
from thinkeval.records import RETRY_STATUSES, Attempt, Sample, Usage
from thinkeval.results.summary import imported_status
from thinkeval.run.journal import Journal, iter_attempts
from thinkeval.run.rundir import (
    check_resumable,
    run_dir_for,
    write_atomic,
    write_config,
    write_samples,
)
from thinkeval.scoring import score
from thinkeval.scoring.numbers import canonical_number
from thinkeval.tasks import TASKS, load_samples, resolve_data_dir

DESCRIPTION = textwrap.dedent(
    """\
    Read AISBench's predictions (outputs/default/<timestamp>/predictions/<model>/*.json[l])
    into a thinkeval run directory as fixed-phase attempts at B1, judged from the text (AISBench
    keeps no finish_reason). Then `thinkeval run` on the written config asks only the samples
    whose reply was empty or unfinished once more at B2, plus any failed requests."""
)
EPILOG = textwrap.dedent(
    """\
    example:
      thinkeval import-aisbench outputs/default/20250628_151326 --output runs/qwen3-aisbench \\
          --budgets 2048,8192 --base-url http://127.0.0.1:8006/v1
      thinkeval run runs/qwen3-aisbench/aisbench-import.yaml --output runs/qwen3-aisbench

    details: docs/aisbench-import.md"""
)

IMPORTED_FROM = "aisbench"
# An address that can never resolve (RFC 6761): a run against it fails with "cannot reach".
PLACEHOLDER_BASE_URL = "http://imported.invalid/v1"
CONFIG_NAME = "aisbench-import.yaml"
CLOSE_THINK = "</think>"
OPEN_THINK = "<think>"
_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
# Literal "\n" escapes (a prompt stored as a Python repr) and every non-word character are
# dropped before comparing prompts, so layout differences never hide a real match.
_ESCAPES = re.compile(r"\\[nrt]")
_NON_WORD = re.compile(r"\W+")


class AisbenchError(ThinkevalError):
    """An AISBench folder or file that cannot be imported; the message names the file."""


def split_prediction(text: str | None) -> tuple[str | None, str | None]:
    """`(content, reasoning)` of an AISBench prediction, split at its last `</think>`.

    AISBench stores `reasoning + "</think>" + content`, or the raw text with its think tags.
    Without a `</think>` the text is all content, unless it opens with `<think>`: then it was
    cut inside the reasoning and the content is missing.

    >>> split_prediction("<think>2+2</think>The answer is 4")
    ('The answer is 4', '2+2')
    >>> split_prediction("<think>Okay, 2+2")
    (None, 'Okay, 2+2')
    """
    if text is None:
        return None, None
    end = text.rfind(CLOSE_THINK)
    if end >= 0:
        reasoning = text[:end].lstrip().removeprefix(OPEN_THINK)
        return text[end + len(CLOSE_THINK) :] or None, reasoning or None
    if text.lstrip().startswith(OPEN_THINK):
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


@dataclass
class Settings:
    """What the AISBench config dump says about the model, when it says it."""

    max_out_len: int | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    served_model: str | None = None
    base_url: str | None = None
    concurrency: int | None = None
    source: str | None = None
    dropped: list[str] = field(default_factory=list)  # generation keys thinkeval owns


@dataclass
class ImportResult:
    """What was imported, where it went, and what to run next."""

    run_dir: Path
    config_path: Path
    config: RunConfig
    counts: dict[str, Counter[str]]  # task -> status (or "error") -> samples
    missing: dict[str, int]  # task -> samples in the selection without any record
    warnings: list[str]
    next_command: str


# Finding the files --------------------------------------------------------------------------


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


def task_of(dataset: str) -> str | None:
    """Our task for an AISBench dataset abbreviation, by prefix; None when it is not ours.

    >>> task_of("gsm8k"), task_of("SuperGLUE_BoolQ"), task_of("ceval-law"), task_of("mmlu")
    ('gsm8k', 'boolq', 'ceval', None)
    """
    lowered = dataset.lower()
    if lowered.startswith("gsm8k"):
        return "gsm8k"
    if lowered.startswith(("superglue_boolq", "boolq")):
        return "boolq"
    if lowered.startswith(("ceval-", "ceval_")):
        return "ceval"
    return None


def ceval_subject(dataset: str, subjects: list[str]) -> str | None:
    """The C-Eval subject of `ceval-<subject>` / `ceval_<subject>` among `subjects`, or None."""
    rest = dataset[len("ceval-") :]
    matches = [
        s for s in subjects if rest == s or (rest.startswith(s) and not rest[len(s)].isalnum())
    ]
    return max(matches, key=len) if matches else None


def _dataset_files(model_dir: Path) -> Iterator[tuple[Path, str, bool]]:
    """`(file, dataset name, is the failed-requests file)` for each prediction file."""
    for path in sorted(model_dir.iterdir()):
        if not path.is_file() or path.suffix not in (".json", ".jsonl"):
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


# Reading the records ------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise AisbenchError(f"{path}: cannot read ({exc.strerror})") from None
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


# Matching records to samples ----------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _fingerprint(text: str) -> str:
    return _NON_WORD.sub("", _ESCAPES.sub(" ", text))


def _same_gold(task: str, theirs: Any, ours: str) -> bool:
    if isinstance(theirs, list) and len(theirs) == 1:
        theirs = theirs[0]
    text = str(theirs).strip()
    if task == "gsm8k":
        # OpenCompass-style datasets keep the whole worked solution, ending "#### 18".
        _, marker, final = text.rpartition("####")
        return canonical_number(final if marker else text) == canonical_number(ours)
    if task == "boolq":
        letters = {"a": "A", "b": "B", "true": "A", "false": "B", "yes": "A", "no": "B"}
        return letters.get(text.lower()) == ours
    return text.upper() == ours


def verify(record: Record, sample: Sample) -> None:
    """Refuse a record that is not about `sample`: a different gold, or another question."""
    if record.gold not in (None, "") and not _same_gold(sample.task, record.gold, sample.gold):
        raise AisbenchError(
            f"{record.where}: gold {record.gold!r} is not {sample.id}'s gold {sample.gold!r}: "
            "the predictions do not follow the dataset order thinkeval uses (another split, "
            "a shuffled or partitioned dataset?)"
        )
    prompt = "".join(_strings(record.prompt))
    question = sample.messages[-1]["content"]
    if prompt and _fingerprint(question) not in _fingerprint(prompt):
        raise AisbenchError(
            f"{record.where}: origin_prompt does not contain the question of {sample.id}: the "
            "predictions do not follow the dataset order thinkeval uses, or used another prompt"
        )


def _sample_id(task: str, subject: str | None, index: int) -> str:
    return f"ceval/{subject}/{index}" if task == "ceval" else f"{task}/{index}"


# The config dump ----------------------------------------------------------------------------


def _literal(node: ast.AST) -> Any:
    """A literal, or a `dict(...)` call of literals (mmengine dumps configs that way)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        fields: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                continue
            try:
                fields[keyword.arg] = _literal(keyword.value)
            except ValueError:
                continue  # e.g. type=VLLMCustomAPIChat: not needed, not a literal
        return fields
    return ast.literal_eval(node)


def read_settings(output_dir: Path, model: str) -> Settings:
    """The model's settings from `configs/*.py`, matched by `abbr`; empty when not found.

    The dump is optional and only gives hints, so a file that does not parse is passed over.
    """
    folder = output_dir / "configs"
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            try:
                fields = _literal(node)
            except ValueError:
                continue
            if isinstance(fields, dict) and fields.get("abbr") == model:
                return _settings(fields, str(path.relative_to(output_dir)))
    return Settings()


def _settings(fields: dict[str, Any], source: str) -> Settings:
    settings = Settings(source=source)
    if isinstance(fields.get("max_out_len"), int):
        settings.max_out_len = fields["max_out_len"]
    generation = fields.get("generation_kwargs")
    if isinstance(generation, dict):
        for key, value in generation.items():
            if key in RESERVED_GENERATION_KEYS or key == "stop":
                settings.dropped.append(key)
            else:
                settings.generation[key] = value
    if isinstance(fields.get("model"), str) and fields["model"]:
        settings.served_model = fields["model"]
    host, port = fields.get("host_ip"), fields.get("host_port")
    if isinstance(host, str) and host and isinstance(port, int):
        settings.base_url = f"http://{host}:{port}/v1"
    batch = fields.get("batch_size")
    if isinstance(batch, int) and batch > 0:
        settings.concurrency = batch  # AISBench's batch_size is its requests in flight
    return settings


# The import ---------------------------------------------------------------------------------


@dataclass
class _Collected:
    """Records matched to samples, per task."""

    successes: dict[str, tuple[Sample, Record]] = field(default_factory=dict)
    failures: dict[str, tuple[Sample, Record]] = field(default_factory=dict)
    tasks: set[str] = field(default_factory=set)


def _collect(
    model_dir: Path, output_dir: Path, data_dir: Path | None
) -> tuple[_Collected, dict[str, list[Sample]]]:
    files = list(_dataset_files(model_dir))
    if not files:
        raise AisbenchError(f"{model_dir}: no prediction files (<dataset>.jsonl or .json)")
    named = []
    for path, dataset, failed in files:
        task = task_of(dataset)
        if task is None:
            raise AisbenchError(
                f"{path}: unknown dataset {dataset!r}; thinkeval imports gsm8k*, BoolQ* / "
                "SuperGLUE_BoolQ* and ceval-<subject>*. Move other datasets' files aside"
            )
        named.append((path, dataset, failed, task))
    wanted = {task for *_, task in named}
    samples = {task: load_samples(task, data_dir) for task in TASKS if task in wanted}
    by_id = {task: {s.id: s for s in items} for task, items in samples.items()}
    subjects = list(dict.fromkeys(s.subset for s in samples.get("ceval", []) if s.subset))
    collected = _Collected()
    for path, dataset, failed, task in named:
        subject = None
        if task == "ceval":
            subject = ceval_subject(dataset, subjects)
            if subject is None:
                raise AisbenchError(
                    f"{path}: unknown C-Eval subject in {dataset!r}; thinkeval has "
                    f"{', '.join(subjects)}"
                )
        for record in read_records(path, output_dir, failed):
            sample_id = _sample_id(task, subject, record.index)
            sample = by_id[task].get(sample_id)
            if sample is None:
                raise AisbenchError(
                    f"{record.where}: index {record.index} is beyond the dataset "
                    f"({dataset} maps to {task}, which has no sample {sample_id})"
                )
            verify(record, sample)
            _add(collected, sample, record)
            collected.tasks.add(task)
    if not collected.tasks:
        raise AisbenchError(f"{model_dir}: the prediction files hold no records")
    return collected, samples


def _add(collected: _Collected, sample: Sample, record: Record) -> None:
    if record.error is None:
        earlier = collected.successes.get(sample.id)
        if earlier is not None:
            raise AisbenchError(
                f"{record.where}: a second prediction for {sample.id} (the first is at "
                f"{earlier[1].where}); import one AISBench run at a time"
            )
        collected.successes[sample.id] = (sample, record)
        collected.failures.pop(sample.id, None)
    elif sample.id not in collected.successes:
        collected.failures.setdefault(sample.id, (sample, record))


def _selection(task: str, items: list[Sample], imported: set[str]) -> dict[str, Any]:
    """The smallest `tasks:` entry covering the imported samples, in dataset order."""
    positions = [i for i, s in enumerate(items) if s.id in imported]
    start, end = positions[0], positions[-1] + 1
    if start == 0 and end == len(items):
        return {"name": task}
    if start == 0:
        return {"name": task, "limit": end}
    return {"name": task, "range": f"{start}:{end}"}


def attempt_from(record: Record, sample: Sample, model: str, budget: int) -> Attempt:
    """The fixed-phase attempt an AISBench record stands for, with its verdict."""
    request: dict[str, Any] = {
        "imported_from": IMPORTED_FROM,
        "source_file": record.source,
        "record": record.key,
    }
    common: dict[str, Any] = {
        "model": model,
        "task": sample.task,
        "sample_id": sample.id,
        "phase": "fixed",
        "budget": budget,
        "max_tokens": budget,
        "imported_from": IMPORTED_FROM,
    }
    if record.error is not None:
        return Attempt(**common, request=request, error=record.error, error_kind="aisbench_failed")
    content, reasoning = split_prediction(record.prediction)
    finish_reason = None
    if record.output_tokens is not None and record.output_tokens >= budget:
        # The reply used the whole budget: the token limit cut it, whatever the text says.
        finish_reason = "length"
        request["finish_reason_inferred"] = "output_tokens >= max_tokens"
    attempt = Attempt(
        **common,
        request=request,
        content=content,
        reasoning=reasoning,
        finish_reason=finish_reason,
        usage=Usage(prompt_tokens=record.input_tokens, completion_tokens=record.output_tokens),
    )
    verdict = score(sample.task, content, finish_reason, sample.gold)
    return msgspec.structs.replace(
        attempt, verdict=imported_status(attempt, verdict), answer=verdict.answer
    )


def _run_name(output_dir: Path) -> str:
    name = _BAD_NAME_CHARS.sub("-", f"aisbench-{output_dir.name}").strip("-.")
    return name[:128]


def _config_data(
    collected: _Collected,
    samples: dict[str, list[Sample]],
    settings: Settings,
    model: str,
    overrides: dict[str, Any],
) -> dict[str, Any]:
    """The run config, as plain data: written to config.json and to the YAML for the next run."""
    imported = set(collected.successes) | set(collected.failures)
    entry: dict[str, Any] = {
        "name": model,
        "base_url": overrides["base_url"] or settings.base_url or PLACEHOLDER_BASE_URL,
        "model": overrides["served_model"] or settings.served_model or model,
        "generation": settings.generation,
    }
    if settings.concurrency is not None:
        entry["concurrency"] = settings.concurrency
    data: dict[str, Any] = {
        "run": overrides["run"],
        "budgets": list(overrides["budgets"]),
        "tasks": [_selection(t, samples[t], imported) for t in samples if t in collected.tasks],
        "models": [entry],
    }
    if overrides["data_dir"] is not None:
        data["data_dir"] = str(overrides["data_dir"])
    return data


def _write_journal(
    run_dir: Path, selected: dict[str, list[Sample]], collected: _Collected, model: str, budget: int
) -> dict[str, Counter[str]]:
    """Append one fixed attempt per imported record, in dataset order; count them per task."""
    counts: dict[str, Counter[str]] = {task: Counter() for task in selected}
    with Journal(run_dir, "main") as journal:
        for task, items in selected.items():
            for sample in items:
                found = collected.successes.get(sample.id) or collected.failures.get(sample.id)
                if found is not None:
                    attempt = attempt_from(found[1], sample, model, budget)
                    journal.append(attempt)
                    counts[task][attempt.verdict or "error"] += 1
    return counts


def _write_run_config(run_dir: Path, data: dict[str, Any], output_dir: Path) -> Path:
    """The YAML config for the adaptive phase; its frozen keys equal config.json's."""
    [entry] = data["models"]
    shown = dict(data, models=[dict(entry, base_url=redact_url(entry["base_url"]))])
    header = (
        f"# Written by `thinkeval import-aisbench {output_dir}`.\n"
        "# Keep budgets, tasks and the model's name, model and generation as they are: the\n"
        "# imported fixed phase was asked with them. base_url may change.\n"
    )
    path = run_dir / CONFIG_NAME
    text = header + yaml.safe_dump(shown, sort_keys=False, allow_unicode=True)
    write_atomic(path, text.encode("utf-8"))
    return path


def import_aisbench(
    source: Path,
    *,
    output: Path | None = None,
    run: str | None = None,
    budgets: tuple[int, int] = (2048, 8192),
    data_dir: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    served_model: str | None = None,
) -> ImportResult:
    """Import one model's predictions from an AISBench folder into a thinkeval run directory.

    Writes config.json, samples/, journal/main.jsonl and summary.json like a run does, plus
    `aisbench-import.yaml`: the config for the `thinkeval run` that does the adaptive phase.

    >>> result = import_aisbench(Path("outputs/default/20250628_151326"), output=Path("runs/a"))
    >>> result.next_command
    'thinkeval run runs/a/aisbench-import.yaml --output runs/a'
    """
    output_dir = find_output_dir(source)
    model_dir = find_model_dir(output_dir, model)
    name = model_dir.name
    settings = read_settings(output_dir, name)
    if settings.max_out_len is not None and settings.max_out_len != budgets[0]:
        raise AisbenchError(
            f"{output_dir / (settings.source or 'configs')}: AISBench ran {name} with "
            f"max_out_len={settings.max_out_len}, but the fixed budget is {budgets[0]}; pass "
            f"--budgets {settings.max_out_len},B2 so the fixed phase means what it says"
        )
    resolved_data = resolve_data_dir(data_dir)
    collected, samples = _collect(model_dir, output_dir, resolved_data)
    overrides = {
        "run": run or _run_name(output_dir),
        "budgets": budgets,
        "data_dir": resolved_data,
        "base_url": base_url,
        "served_model": served_model,
    }
    data = _config_data(collected, samples, settings, name, overrides)
    config = parse_config(data, f"import of {output_dir}")
    run_dir = run_dir_for(config, output)
    if any(a.model == name for a in iter_attempts(run_dir)):
        raise AisbenchError(
            f"{run_dir} already holds attempts of model {name!r}; import into a new --output"
        )
    check_resumable(run_dir, config)

    selected = {sel.name: list(sel.select(samples[sel.name])) for sel in config.tasks}
    for task, items in selected.items():
        write_samples(run_dir, task, items)
    write_config(run_dir, config)
    counts = _write_journal(run_dir, selected, collected, name, budgets[0])
    config_path = _write_run_config(run_dir, data, output_dir)
    # Imported here, not at the top: results.py asks this module how imported attempts are
    # judged, and a module-level import both ways would be a cycle.
    from thinkeval.results.summary import write_summary

    write_summary(run_dir)

    missing = {task: len(items) - sum(counts[task].values()) for task, items in selected.items()}
    warnings = [
        f"{task}: {number} sample(s) inside the imported range have no AISBench record; the "
        "next run asks them at the fixed budget"
        for task, number in missing.items()
        if number
    ]
    if settings.dropped:
        warnings.append(
            f"generation_kwargs {', '.join(settings.dropped)} from {settings.source} are not "
            "sent by thinkeval (it owns them, or they cut thinking short)"
        )
    url = data["models"][0]["base_url"]
    if url != redact_url(url):
        warnings.append(f"{config_path}: credentials in base_url were redacted; put them back")
    if url == PLACEHOLDER_BASE_URL:
        warnings.append(
            f"no server address was given or found: set base_url in {config_path} (or import "
            "again with --base-url) before the next command"
        )
    command = f"thinkeval run {shlex.quote(str(config_path))} --output {shlex.quote(str(run_dir))}"
    return ImportResult(run_dir, config_path, config, counts, missing, warnings, command)


# The command --------------------------------------------------------------------------------


def _render(result: ImportResult, console: Console) -> None:
    table = Table(title=f"imported into {result.run_dir}", title_justify="left")
    table.add_column("task")
    columns = ("correct", "wrong", "no_answer", "empty", "unfinished", "error")
    for column in (*columns, "to retry", "missing"):
        table.add_column(column, justify="right")
    for task, counts in result.counts.items():
        retry = sum(counts[s] for s in RETRY_STATUSES)
        table.add_row(
            task,
            *(str(counts[c]) for c in columns),
            str(retry),
            str(result.missing[task]),
        )
    console.print(table)
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
    console.print(
        "next (asks only the samples to retry, and failed or missing ones):\n  "
        + escape(result.next_command),
        soft_wrap=True,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `thinkeval import-aisbench`'s options to `parser`."""
    parser.add_argument(
        "source",
        metavar="DIR",
        type=Path,
        help="AISBench output folder, e.g. outputs/default/20250628_151326",
    )
    parser.add_argument(
        "--output", metavar="RUN_DIR", type=Path, help="run directory (default: runs/<run>)"
    )
    parser.add_argument("--run", metavar="NAME", help="run name (default: aisbench-<folder>)")
    parser.add_argument(
        "--budgets",
        type=parse_budgets,
        default=(2048, 8192),
        metavar="B1,B2",
        help="B1 must be AISBench's max_out_len; B2 is the retry budget (default: 2048,8192)",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="datasets folder (default: auto)")
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the live server for the adaptive phase (default: from the AISBench config dump)",
    )
    parser.add_argument(
        "--model",
        metavar="ABBR",
        help="which predictions/<ABBR>/ to import when there are several; also the model name",
    )
    parser.add_argument(
        "--served-model",
        metavar="ID",
        help="the model id the server serves (default: the config dump's model, else ABBR)",
    )


def run(args: argparse.Namespace) -> int:
    """Import, print what was imported and the next command; 0 on success."""
    result = import_aisbench(
        args.source,
        output=args.output,
        run=args.run,
        budgets=args.budgets,
        data_dir=args.data_dir,
        base_url=args.base_url,
        model=args.model,
        served_model=args.served_model,
    )
    # Imported here, not at the top: results.py (read by terminal.py) reads this module.
    from thinkeval.ui.tables import stdout_console

    _render(result, stdout_console())
    return 0
