"""Every reader of a run agrees with the one judge of the protocol, on generated journals.

Hypothesis writes journals with errors, duplicates, retries that were due and retries that were
not, wrong budgets, imported replies, version-1 lines without a recorded reply state, repeats
and several shard files. For every (model, task, sample, repeat) the judge's decision computed
directly from its lines (`judge_unit`) must equal what the summary counts, what `verify`
reports, what resuming would ask, what `status` shows and what the report counts.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thinkeval.config import ModelConfig, RunConfig, TaskSelection
from thinkeval.ops.status import read_status
from thinkeval.ops.verify import verify_run
from thinkeval.records import Attempt, Sample
from thinkeval.report._collect import collect
from thinkeval.results.columns import PENDING
from thinkeval.results.summary import tally
from thinkeval.run.protocol import ModelRun
from thinkeval.store.counted import Journals, count_journal, index_samples
from thinkeval.store.journal import Journal
from thinkeval.store.protocol_rules import UnitJudgement, judge_unit, line_of, score_attempt
from thinkeval.store.run_record import RunRecord, TaskRecord, read_run_record, write_run_record
from thinkeval.store.rundir import write_samples
from thinkeval.tasks import get_task

BUDGETS = (2048, 8192)
MODELS = ("a", "b")
WRITERS = ("main", "shard-1-of-2", "shard-2-of-2")
GOLD = "18"
# A reply of each kind: (content, finish_reason, recorded state or None for a version-1 line)
REPLIES: dict[str, tuple[str | None, str | None]] = {
    "correct": ("The answer is 18.", "stop"),
    "wrong": ("The answer is 5.", "stop"),
    "no_answer": ("I am not sure.", "stop"),
    "empty": (None, "length"),
    "unfinished": ("Let me think: 9 * 2", "length"),
}

line_strategy = st.fixed_dictionaries(
    {
        "model": st.sampled_from(MODELS),
        "sample": st.integers(0, 3),
        "repeat": st.integers(0, 1),
        "phase": st.sampled_from(["fixed", "fixed", "retry"]),
        "kind": st.sampled_from([*REPLIES, "error", "error"]),
        "writer": st.sampled_from(WRITERS),
        "wrong_budget": st.sampled_from([False] * 7 + [True]),
        "version_1": st.booleans(),
        "imported": st.booleans(),
    }
)


def _attempt(line: dict[str, Any]) -> Attempt:
    phase = line["phase"]
    budget = BUDGETS[0 if phase == "fixed" else 1]
    if line["wrong_budget"]:
        budget += 1
    common: dict[str, Any] = {
        "model": line["model"],
        "task": "gsm8k",
        "sample_id": f"gsm8k/{line['sample']}",
        "repeat": line["repeat"],
        "phase": phase,
        "budget": budget,
        "max_tokens": budget,
        "shard": None if line["writer"] == "main" else line["writer"],
    }
    if line["kind"] == "error":
        return Attempt(**common, error="HTTP 500: boom", error_kind="server_error", http_status=500)
    content, finish = REPLIES[line["kind"]]
    if line["imported"] and phase == "fixed":
        # Imported: finish_reason unknown; the state judged at import is recorded (version 2)
        # or, in a version-1 line, left to the judge's rule for imports.
        common["imported_from"] = "aisbench"
        finish = None if line["kind"] != "empty" else finish
    state = None if line["version_1"] else _state(line["kind"], content, finish, line)
    return Attempt(**common, content=content, finish_reason=finish, state=state, gold=GOLD)


def _state(kind: str, content: str | None, finish: str | None, line: dict[str, Any]) -> Any:
    if kind in ("empty", "unfinished"):
        return kind
    if line["imported"] and line["phase"] == "fixed" and kind == "no_answer":
        return "unfinished"  # the import's rule: no legal answer and no known end
    return "finished"


def _write_run(root: Path, lines: list[dict[str, Any]], repeats: int) -> None:
    samples = [
        Sample(f"gsm8k/{i}", "gsm8k", ({"role": "user", "content": f"Q{i}"},), GOLD)
        for i in range(4)
    ]
    write_samples(root, "gsm8k", samples)
    record = RunRecord(
        run="generated",
        tasks=[TaskRecord(name="gsm8k", budgets=BUDGETS, repeats=repeats)],
        models=[ModelConfig(name=m, base_url="http://127.0.0.1:9/v1") for m in MODELS],
    )
    write_run_record(root, record)
    journals = {writer: Journal(root, writer) for writer in WRITERS}
    for journal in journals.values():
        journal.open()
    try:
        for line in lines:
            journals[line["writer"]].append(_attempt(line))
    finally:
        for journal in journals.values():
            journal.close()


def _in_read_order(lines: list[dict[str, Any]]) -> dict[str, Attempt]:
    """Every attempt by `writer:number`, in the order journal files are read (by name)."""
    attempts = {}
    for writer in sorted(WRITERS):
        mine = [line for line in lines if line["writer"] == writer]
        for number, line in enumerate(mine):
            attempts[f"{writer}:{number}"] = _attempt(line)
    return attempts


def _reference(lines: list[dict[str, Any]], repeats: int) -> dict[Any, UnitJudgement[str]]:
    """The judge's decision per unit, from each unit's lines in journal read order."""
    spec = get_task("gsm8k")
    ordered = _in_read_order(lines)
    judged = {}
    for model in MODELS:
        for sample in range(4):
            for repeat in range(repeats):
                unit_lines = [
                    line_of(a, spec, GOLD, where)
                    for where, a in ordered.items()
                    if a.model == model and a.sample_id == f"gsm8k/{sample}" and a.repeat == repeat
                ]
                judged[model, sample, repeat] = judge_unit(unit_lines, BUDGETS)
    return judged


def _expected_counts(
    lines: list[dict[str, Any]], judged: dict[Any, UnitJudgement[str]], model: str
) -> Counter[str]:
    """What the summary must count for `model`, from the judge's decisions alone."""
    spec = get_task("gsm8k")
    attempts = _in_read_order(lines)
    counts: Counter[str] = Counter()
    for (m, _, _), unit in judged.items():
        if m != model:
            continue
        if unit.fixed is None:
            counts["fixed.pending"] += 1
            continue
        fixed = score_attempt(attempts[unit.fixed.where], spec, GOLD).outcome.status
        counts[f"fixed.{fixed}"] += 1
        if unit.candidate:
            counts["retry.candidates"] += 1
            if unit.retry is None:
                counts["retry.pending"] += 1
            else:
                retry = score_attempt(attempts[unit.retry.where], spec, GOLD).outcome.status
                counts[f"retry.{retry}"] += 1
    return counts


def _summary_counts(root: Path, model: str) -> Counter[str]:
    record = read_run_record(root)
    found = tally(root, record, list(MODELS), ["gsm8k"])[model, "gsm8k"].counts
    counts: Counter[str] = Counter()
    for phase, block in (("fixed", found.fixed), ("retry", found.retry)):
        for status in ("correct", "wrong", "no_answer", "empty", "unfinished", "error", "pending"):
            if getattr(block, status):
                counts[f"{phase}.{status}"] = getattr(block, status)
    if found.retry.candidates:
        counts["retry.candidates"] = found.retry.candidates
    return counts


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(lines=st.lists(line_strategy, max_size=40), repeats=st.integers(1, 2))
def test_every_reader_agrees_with_the_judge(lines: list[dict[str, Any]], repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write_run(root, lines, repeats)
        judged = _reference(lines, repeats)
        # The journal holds repeats beyond the run's: they are outside the run, for everyone.
        inside = {k: v for k, v in judged.items() if k[2] < repeats}

        for model in MODELS:
            assert _summary_counts(root, model) == _expected_counts(lines, inside, model)

        found = verify_run(root)
        for check in found.tasks:
            units = [v for k, v in inside.items() if k[0] == check.model]
            assert check.fixed_recorded == sum(u.fixed_state == "recorded" for u in units)
            assert check.candidates == sum(u.candidate for u in units)
            assert check.retry_recorded == sum(u.retry_state == "recorded" for u in units)
            assert len(check.missing_fixed) == sum(u.fixed_state == "missing" for u in units)
            assert len(check.error_only_fixed) == sum(u.fixed_state == "error" for u in units)
            assert len(check.missing_retry) == sum(u.retry_state == "missing" for u in units)
            assert len(check.error_only_retry) == sum(u.retry_state == "error" for u in units)
            assert len(check.unexpected_retries) == sum(bool(u.unexpected_retries) for u in units)
            assert len(check.duplicated) == sum(len(u.duplicates) for u in units)
            assert len(check.wrong_budget) == sum(len(u.wrong_budget) for u in units)
        assert found.complete == all(u.complete for u in inside.values())

        record = read_run_record(root)
        config = RunConfig(
            run="generated",
            tasks=[TaskSelection(name="gsm8k", budgets=BUDGETS, repeats=repeats)],
            models=list(record.models),
        )
        tasks = [config.task("gsm8k")]
        with Journals(root) as journals:
            indexes = index_samples(root, {"gsm8k": repeats})
            for model in MODELS:
                run = ModelRun(
                    record.models[MODELS.index(model)],
                    root,
                    tasks,
                    Journal(root, "unused"),
                    journals,
                    indexes,
                    count_journal(journals, indexes, model=model),
                )
                plan = run.plan()
                units = [u for k, u in inside.items() if k[0] == model]
                asks = sum(u.fixed_state != "recorded" for u in units) + sum(
                    u.candidate and u.retry_state != "recorded" for u in units
                )
                assert plan.queued["gsm8k"] == asks

        status = read_status(root)
        assert status.complete == all(u.complete for u in inside.values())
        for row in status.phases:
            units = [u for k, u in inside.items() if k[0] == row.model]
            if row.phase == "fixed":
                assert row.total == len(units)
                assert row.failed == sum(u.fixed_state == "error" for u in units)
                assert row.pending == sum(u.fixed_state == "missing" for u in units)
            else:
                assert row.total == sum(u.candidate for u in units)
                assert row.pending == sum(u.retry_state == "missing" for u in units)

        with collect([root]) as collection:
            for model in MODELS:
                cell = collection.cells[model, "gsm8k"]
                for sample in range(4):
                    position = cell.samples.position[f"gsm8k/{sample}"]
                    for repeat in range(repeats):
                        unit = inside[model, sample, repeat]
                        at = position * repeats + repeat
                        asked = cell.fixed.status[at] != PENDING
                        assert asked == (unit.fixed is not None)
                        if asked:
                            assert bool(cell.candidate[at]) == unit.candidate
                            assert (cell.candidate[at] and cell.retry.status[at] != PENDING) == (
                                unit.candidate and unit.retry is not None
                            )
