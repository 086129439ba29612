"""`thinkeval import-aisbench`: an AISBench output folder as the fixed phase of a thinkeval run.

Each prediction becomes one fixed-phase `Attempt` at the fixed budget, matched to our sample by
its position within the dataset (within the subset for tasks of several parts, e.g. a C-Eval
subject) and checked against the record's gold and prompt. Which of our tasks a dataset is comes
from the task specs' AISBench names. AISBench keeps no finish_reason, so the reply state is
judged at import and recorded with the attempt: missing or blank content is `empty`; a reply that
used the whole budget was cut by the token limit; a finished-looking reply without a legal final
answer is `unfinished` (a cut-off reply looks exactly like that), so it gets the retry a live run
would give it. Failed requests become `error` attempts, asked again by the next run.

`thinkeval run` on the written config then performs only the adaptive phase (and re-asks the
failed requests): docs/aisbench-import.md.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from thinkeval.config import RunConfig, parse_config
from thinkeval.ops.aisbench.files import (
    AisbenchError,
    Record,
    find_model_dir,
    find_output_dir,
    split_prediction,
)
from thinkeval.ops.aisbench.matching import Collected, collect
from thinkeval.ops.aisbench.reading import imported_state, thinking_mode
from thinkeval.ops.aisbench.settings import Settings, read_settings
from thinkeval.records import Attempt, Sample, Usage, journal_gold
from thinkeval.results.summary import write_summary
from thinkeval.scoring.scorers import STRICT, ReplyText
from thinkeval.store.journal import Journal, iter_attempts
from thinkeval.store.protocol_rules import recorded_verdicts
from thinkeval.store.run_record import (
    check_resumable,
    existing_record,
    merged,
    new_record,
    task_record,
    write_run_record,
)
from thinkeval.store.rundir import run_dir_for, write_atomic, write_samples
from thinkeval.tasks import get_task, resolve_data_dir
from thinkeval.urls import redact_url

IMPORTED_FROM = "aisbench"
# An address that can never resolve (RFC 6761): a run against it fails with "cannot reach".
PLACEHOLDER_BASE_URL = "http://imported.invalid/v1"
CONFIG_NAME = "aisbench-import.yaml"
_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


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
    thinking: bool = True  # read predictions as a thinking model's
    thinking_source: str = ""  # what said so


def _selection(task: str, items: list[Sample], imported: set[str]) -> dict[str, Any]:
    """The smallest `tasks:` entry covering the imported samples, in dataset order."""
    positions = [i for i, s in enumerate(items) if s.id in imported]
    start, end = positions[0], positions[-1] + 1
    if start == 0 and end == len(items):
        return {"name": task}
    if start == 0:
        return {"name": task, "limit": end}
    return {"name": task, "range": f"{start}:{end}"}


# The attempts ------------------------------------------------------------------------------------


def attempt_from(
    record: Record, sample: Sample, model: str, budget: int, thinking: bool = True
) -> Attempt:
    """The fixed-phase attempt an AISBench record stands for, with its state and verdicts;
    `thinking` says how a prediction without `</think>` reads (`thinking_mode`)."""
    request: dict[str, Any] = {
        "imported_from": IMPORTED_FROM,
        "source_file": record.source,
        "record": record.key,
        "thinking": thinking,
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
        return Attempt(**common, request=request, error=record.error, error_kind="imported")
    content, reasoning = split_prediction(record.prediction, thinking)
    finish_reason = None
    if record.output_tokens is not None and record.output_tokens >= budget:
        # The reply used the whole budget: the token limit cut it, whatever the text says.
        finish_reason = "length"
        request["finish_reason_inferred"] = "output_tokens >= max_tokens"
    spec = get_task(sample.task)
    state = imported_state(spec, content, finish_reason, sample.gold)
    reply = ReplyText(content, reasoning, finish_reason, state)
    gold, digest = journal_gold(sample.gold)
    return Attempt(
        **common,
        request=request,
        content=content,
        reasoning=reasoning,
        finish_reason=finish_reason,
        usage=Usage(prompt_tokens=record.input_tokens, completion_tokens=record.output_tokens),
        state=state,
        gold=gold,
        gold_digest=digest,
        verdicts=recorded_verdicts(spec, reply, sample.gold),
    )


# The run directory -------------------------------------------------------------------------------


def _run_name(output_dir: Path) -> str:
    name = _BAD_NAME_CHARS.sub("-", f"aisbench-{output_dir.name}").strip("-.")
    return name[:128]


def _config_data(
    collected: Collected,
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
    run_dir: Path,
    selected: dict[str, list[Sample]],
    collected: Collected,
    model: str,
    budget: int,
    thinking: bool,
) -> dict[str, Counter[str]]:
    """Append one fixed attempt per imported record, in dataset order; count them per task."""
    counts: dict[str, Counter[str]] = {task: Counter() for task in selected}
    with Journal(run_dir, "main") as journal:
        for task, items in selected.items():
            for sample in items:
                found = collected.successes.get(sample.id) or collected.failures.get(sample.id)
                if found is not None:
                    attempt = attempt_from(found[1], sample, model, budget, thinking)
                    journal.append(attempt)
                    strict = attempt.verdicts.get(STRICT.name)
                    counts[task][strict.status if strict else "error"] += 1
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
    thinking: bool | None = None,
) -> ImportResult:
    """Import one model's predictions from an AISBench folder into a thinkeval run directory.

    Writes config.json, samples/, journal/main.jsonl and summary.json like a run does, plus
    `aisbench-import.yaml`: the config for the `thinkeval run` that does the adaptive phase.
    `thinking` (None: decide from the config dump or the predictions) says whether a prediction
    without `</think>` is a thinking model's reasoning alone (`thinking_mode`).

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
    collected, samples = collect(model_dir, output_dir, resolved_data)
    predictions = (record.prediction for _, record in collected.successes.values())
    thinks, thinking_source = thinking_mode(thinking, settings, predictions)
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
    old = existing_record(run_dir)
    check_resumable(run_dir, old, config)

    selected: dict[str, list[Sample]] = {}
    records = []
    source_text = f"local {resolved_data}" if resolved_data is not None else "hub"
    for task in config.resolved.values():
        items = selected[task.name] = list(task.select(samples[task.name]))
        count, digest = write_samples(run_dir, task.name, items)
        records.append(task_record(task, digest, count, source_text))
    write_run_record(run_dir, merged(old, new_record(config, records)))
    counts = _write_journal(run_dir, selected, collected, name, budgets[0], thinks)
    config_path = _write_run_config(run_dir, data, output_dir)
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
    return ImportResult(
        run_dir, config_path, config, counts, missing, warnings, command, thinks, thinking_source
    )
