"""Each task resolves once: a config's entry over its spec into one `ResolvedTask`, the run record
written from it, and the record read back as the same task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thinkeval.config import ResolvedTask, RunConfig, TaskSelection, parse_config
from thinkeval.config.resolved import resolve_task
from thinkeval.errors import ConfigError, JournalError
from thinkeval.generation import GenerationSettings
from thinkeval.store.run_record import (
    check_resumable,
    new_record,
    read_run_record,
    task_record,
    write_run_record,
)
from thinkeval.store.rundir import CONFIG_FILE
from thinkeval.tasks.spec import TaskSpec

MODEL = {"name": "m", "base_url": "http://127.0.0.1:9/v1"}


def _config(**overrides: object) -> RunConfig:
    data: dict = {"run": "r", "models": [MODEL], **overrides}
    return parse_config(data)


def test_a_task_entry_resolves_over_its_spec_and_the_config() -> None:
    config = _config(
        budgets=[1024, 4096],
        tasks=[
            {"name": "gsm8k", "range": "5:9", "repeats": 3, "generation": {"top_p": 0.9}},
            {"name": "boolq", "budgets": [100, 200], "limit": 4, "retry": "reask"},
        ],
    )
    gsm8k, boolq = config.task("gsm8k"), config.task("boolq")
    assert list(config.resolved) == ["gsm8k", "boolq"]  # the config's order
    assert gsm8k.spec.name == "gsm8k" and gsm8k.spec is config.catalogue.get("gsm8k")
    assert (gsm8k.budgets, gsm8k.repeats, gsm8k.bounds, gsm8k.limit) == (
        (1024, 4096),
        3,
        (5, 9),
        None,
    )
    assert (boolq.budgets, boolq.repeats, boolq.limit, boolq.retry) == ((100, 200), 1, 4, "reask")
    assert gsm8k.recommended == gsm8k.spec.generation
    # The task's recommended sampling, then the model's generation, then the task entry's.
    model = GenerationSettings.read({"top_p": 0.5, "temperature": 0.6})
    layered = gsm8k.request_generation(model).as_dict()
    assert layered == {**gsm8k.recommended.as_dict(), "top_p": 0.9, "temperature": 0.6}
    assert list(layered) == [*gsm8k.recommended.as_dict(), "top_p", "temperature"]
    top_p = GenerationSettings.read({"top_p": 0.5})
    assert boolq.request_generation(top_p).as_dict() == {
        **boolq.recommended.as_dict(),
        "top_p": 0.5,
    }


def test_the_config_resolves_each_task_once(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(tasks=["gsm8k", "boolq"])
    calls: list[str] = []

    def counting(
        selection: TaskSelection, spec: TaskSpec, budgets: tuple[int, int] | None
    ) -> ResolvedTask:
        calls.append(selection.name)
        return resolve_task(selection, spec, budgets)

    monkeypatch.setattr("thinkeval.config.resolve_task", counting)
    first = [config.task("gsm8k"), config.task("boolq")]
    again = [config.task("gsm8k"), config.task("boolq"), *config.resolved.values()]
    assert calls == ["gsm8k", "boolq"]
    assert all(a is b for a, b in zip(first * 2, again, strict=True))
    with pytest.raises(
        ConfigError, match=r"no task named 'ceval' in the config; tasks: gsm8k, boolq"
    ):
        config.task("ceval")


def test_the_record_is_written_from_the_resolved_task_and_reads_back_as_it(tmp_path: Path) -> None:
    config = _config(
        tasks=[{"name": "gsm8k", "range": " 2 : 7 ", "repeats": 2, "generation": {"seed": 1}}]
    )
    task = config.task("gsm8k")
    entry = task_record(task, "abc123", 5, "local /data (test.jsonl)")
    assert (entry.range, entry.budgets, entry.repeats, entry.generation) == (
        "2:7",
        (2048, 8192),
        2,
        {"seed": 1},
    )
    assert task.generation == GenerationSettings(seed=1)
    assert (entry.version, entry.scoring) == (task.spec.version, task.spec.scoring_version)
    write_run_record(tmp_path, new_record(config, [entry]))
    record = read_run_record(tmp_path)
    back = record.task("gsm8k")
    assert isinstance(back, ResolvedTask) and back == task
    assert record.task("gsm8k") is back  # resolved once, then looked up
    assert record.entry("gsm8k").digest == "abc123"
    with pytest.raises(JournalError, match=r"config.json: the run has no task 'boolq'"):
        record.task("boolq")


def test_a_version_1_record_resolves_with_the_run_s_budgets(tmp_path: Path) -> None:
    # Version 1 kept one budget pair for every task, and no recommended sampling or retry.
    old = {
        "schema_version": 1,
        "run": "old",
        "budgets": [512, 1024],
        "tasks": [{"name": "boolq", "limit": 3}, {"name": "gsm8k", "range": ":4"}],
        "models": [MODEL],
    }
    (tmp_path / CONFIG_FILE).write_text(json.dumps(old), encoding="utf-8")
    record = read_run_record(tmp_path)
    boolq, gsm8k = record.task("boolq"), record.task("gsm8k")
    assert (boolq.budgets, boolq.limit, boolq.recommended, boolq.retry) == (
        (512, 1024),
        3,
        GenerationSettings(),
        None,
    )
    assert (gsm8k.bounds, gsm8k.range, gsm8k.selection) == ((None, 4), ":4", "range :4")


def test_a_record_without_budgets_or_with_a_broken_range_says_so(tmp_path: Path) -> None:
    old = {
        "run": "old",
        "tasks": [{"name": "boolq"}, {"name": "gsm8k", "budgets": [1, 2], "range": "x"}],
        "models": [MODEL],
    }
    (tmp_path / CONFIG_FILE).write_text(json.dumps(old), encoding="utf-8")
    record = read_run_record(tmp_path)  # reading alone resolves nothing
    with pytest.raises(JournalError, match=r"no budgets recorded for task 'boolq'"):
        record.task("boolq")
    with pytest.raises(JournalError, match=r"task 'gsm8k' has range 'x', not START:END"):
        record.task("gsm8k")


def test_resuming_compares_the_recorded_task_with_the_config_s(tmp_path: Path) -> None:
    config = _config(tasks=[{"name": "boolq", "repeats": 2}, "gsm8k"])
    entries = [task_record(config.task(name), "d", 1, "s") for name in ("boolq", "gsm8k")]
    write_run_record(tmp_path, new_record(config, entries))
    old = read_run_record(tmp_path)
    check_resumable(tmp_path, old, config)  # the same settings resume
    check_resumable(tmp_path, old, _config(tasks=["gsm8k", "ceval"]))  # a new task, a dropped one
    with pytest.raises(
        JournalError, match=r"task 'boolq' was run with repeats 2, the config now says 3"
    ):
        check_resumable(tmp_path, old, _config(tasks=[{"name": "boolq", "repeats": 3}]))
    changed = _config(tasks=[{"name": "gsm8k", "budgets": [100, 200]}])
    with pytest.raises(
        JournalError, match=r"budgets \[2048, 8192\], the config now says \[100, 200\]"
    ):
        check_resumable(tmp_path, old, changed)
