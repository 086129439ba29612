"""`thinkeval verify RUN_DIR`: is the run complete, and did it keep the protocol exactly?

All journal files (the main run and every shard) are combined. For every model and task of
`config.json` and every sample of `samples/<task>.jsonl`:

* the fixed phase is recorded exactly once;
* the retry phase is recorded exactly once for the candidates (fixed verdict `empty` or
  `unfinished`) and never for the others;
* attempts were sent at the run's budgets.

A sample+phase recorded successfully more than once (two shards with overlapping splits, a
journal copied twice) is a duplicate. A sample whose only attempts in a phase are transport
errors is `error-only`: the next `thinkeval run` asks it again. Attempts for models, tasks or
samples outside the run are `unknown`. A samples file whose digest is not the one the run
recorded when it wrote it (a gold or prompt edited by hand) is `edited`: the run is not clean.
Every decision (which attempt counts, whether the retry is due, what is a duplicate) is the
protocol's rules' (`store/protocol_rules.py`), the same that `summary.json`, `status` and
resuming use, so they always agree. With repeats, each (sample, repeat) is checked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from thinkeval.ops.processes import find_writers
from thinkeval.records import Phase, Sample
from thinkeval.results.sequential_run import dealt_positions
from thinkeval.store.journal import scan
from thinkeval.store.protocol_rules import Line, judge_unit, line_of
from thinkeval.store.run_record import edited_samples, read_run_record
from thinkeval.store.rundir import SAMPLES_DIR, read_samples
from thinkeval.tasks.catalogue import Catalogue


@dataclass(frozen=True)
class Duplicate:
    """A sample and phase recorded successfully more than once, with every place it is."""

    sample_id: str
    phase: Phase
    lines: list[str]


@dataclass(frozen=True)
class WrongBudget:
    sample_id: str
    phase: Phase
    budget: int
    where: str


@dataclass(frozen=True)
class Unknown:
    """An attempt for a model, task, sample or repeat that the run does not have."""

    model: str
    task: str
    sample_id: str
    repeat: int
    where: str


@dataclass
class TaskCheck:
    """The verification of one model on one task."""

    model: str
    task: str
    budgets: list[int]
    samples: int  # (sample, repeat) pairs
    repeats: int = 1
    fixed_recorded: int = 0
    candidates: int = 0
    retry_recorded: int = 0
    missing_fixed: list[str] = field(default_factory=list)
    missing_retry: list[str] = field(default_factory=list)
    error_only_fixed: list[str] = field(default_factory=list)
    error_only_retry: list[str] = field(default_factory=list)
    duplicated: list[Duplicate] = field(default_factory=list)
    unexpected_retries: list[str] = field(default_factory=list)
    wrong_budget: list[WrongBudget] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not (
            self.missing_fixed
            or self.missing_retry
            or self.error_only_fixed
            or self.error_only_retry
        )

    @property
    def clean(self) -> bool:
        return not (self.duplicated or self.unexpected_retries or self.wrong_budget)


@dataclass
class Verification:
    """Everything `verify` found; `ok` when the run is complete and clean."""

    run: str
    run_dir: str
    tasks: list[TaskCheck]
    unknown: list[Unknown] = field(default_factory=list)
    invalid_lines: list[str] = field(default_factory=list)
    missing_samples: list[str] = field(default_factory=list)
    torn_tails: list[str] = field(default_factory=list)
    live_writers: list[str] = field(default_factory=list)
    # Samples files changed since the run wrote them (`store.run_record.edited_samples`).
    edited_samples: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. an older run without digests

    @property
    def complete(self) -> bool:
        return not self.missing_samples and all(t.complete for t in self.tasks)

    @property
    def clean(self) -> bool:
        broken = self.unknown or self.invalid_lines or self.edited_samples
        return not broken and all(t.clean for t in self.tasks)

    @property
    def ok(self) -> bool:
        return self.complete and self.clean

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the `--json` output), with `ok`, `complete` and `clean`."""
        data = asdict(self)
        for row, check in zip(data["tasks"], self.tasks, strict=True):
            row.update(complete=check.complete, clean=check.clean)
        data.update(ok=self.ok, complete=self.complete, clean=self.clean)
        return data


# (model, task, sample id, repeat)
_Key = tuple[str, str, str, int]


def _read_journals(
    run_dir: Path,
    found: Verification,
    golds: dict[tuple[str, str], str],
    catalogue: Catalogue,
) -> dict[_Key, list[Line[str]]]:
    """Every parseable attempt as the judge sees it, by (model, task, sample id, repeat), in
    journal order.

    Unlike `journal.iter_attempts`, a broken line is reported and skipped rather than fatal, so a
    single bad line does not hide the rest of the check.
    """
    seen: dict[_Key, list[Line[str]]] = defaultdict(list)
    for line in scan(run_dir):
        where = f"{line.path.name}:{line.number}"
        attempt = line.attempt
        if line.torn:
            found.torn_tails.append(where)
            continue
        if attempt is None:
            found.invalid_lines.append(f"{where}: {line.problem}")
            continue
        spec = catalogue.find(attempt.task)
        gold = golds.get((attempt.task, attempt.sample_id))
        key = (attempt.model, attempt.task, attempt.sample_id, attempt.repeat)
        if spec is None or gold is None:
            seen[key].append(Line(attempt.phase, attempt.final, attempt.budget, False, where))
        else:
            seen[key].append(line_of(attempt, spec, gold, where))
    return seen


def _check_unit(
    check: TaskCheck, unit: str, lines: list[Line[str]], budgets: tuple[int, int]
) -> None:
    judged = judge_unit(lines, budgets)
    check.wrong_budget.extend(
        WrongBudget(unit, line.phase, line.budget, line.where) for line in judged.wrong_budget
    )
    for phase, places in judged.duplicates.items():
        check.duplicated.append(Duplicate(unit, phase, places))
    if judged.unexpected_retries:
        check.unexpected_retries.append(unit)
    fixed = judged.fixed_state
    if fixed != "recorded":
        (check.error_only_fixed if fixed == "error" else check.missing_fixed).append(unit)
        return
    check.fixed_recorded += 1
    retry = judged.retry_state
    if retry is None:
        return
    check.candidates += 1
    if retry == "recorded":
        check.retry_recorded += 1
    else:
        (check.error_only_retry if retry == "error" else check.missing_retry).append(unit)


def verify_run(run_dir: Path) -> Verification:
    """Check the run in `run_dir` for completeness and protocol violations (of a `decide:`
    run, over the questions it dealt)."""
    record = read_run_record(run_dir)
    found = Verification(run=record.run, run_dir=str(run_dir), tasks=[])
    found.live_writers = [w.describe() for w in find_writers(run_dir) if w.alive]
    found.edited_samples, found.notes = edited_samples(run_dir, record)
    samples: dict[str, list[Sample]] = {}
    for task in record.task_names:
        if (run_dir / SAMPLES_DIR / f"{task}.jsonl").exists():
            samples[task] = read_samples(run_dir, task, messages=False)
        else:
            found.missing_samples.append(task)
    dealt = dealt_positions(run_dir)  # decide: only the questions dealt were due
    if dealt is not None:
        samples = {
            task: [s for i, s in enumerate(items) if i in dealt.get(task, ())]
            for task, items in samples.items()
        }
    golds = {(task, s.id): s.gold for task, items in samples.items() for s in items}
    seen = _read_journals(run_dir, found, golds, record.catalogue)
    known: set[_Key] = set()
    for model in record.model_names:
        for task, items in samples.items():
            budgets, repeats = record.task(task).budgets, record.task(task).repeats
            check = TaskCheck(
                model=model,
                task=task,
                budgets=list(budgets),
                repeats=repeats,
                samples=len(items) * repeats,
            )
            for sample in items:
                for repeat in range(repeats):
                    key = (model, task, sample.id, repeat)
                    known.add(key)
                    unit = sample.id if repeats == 1 else f"{sample.id}#{repeat}"
                    _check_unit(check, unit, seen.get(key, []), budgets)
            found.tasks.append(check)
    for key, lines in seen.items():
        if key not in known:
            model, task, sample_id, repeat = key
            found.unknown.extend(Unknown(model, task, sample_id, repeat, e.where) for e in lines)
    return found
