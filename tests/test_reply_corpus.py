"""The labelled corpus of realistic replies (tests/data/replies*.jsonl): strict scoring agrees
with a careful human grader on every reply, class by class.

Each line is one reply: `task`, `class`, `content`, `finish_reason`, `reasoning`, `gold`, and the
grader's `status`, `answer` and `why`; optionally the `rule` that must have fired (the rule
names of docs/scoring.md), which then has to agree too. Rows of tasks this checkout does not
register (another branch's tasks) are counted and reported as skipped, never silently dropped.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from thinkeval.api import score
from thinkeval.tasks.registry import find_task

DATA = Path(__file__).parent / "data"
FIELDS = {
    "task",
    "class",
    "content",
    "finish_reason",
    "reasoning",
    "gold",
    "status",
    "answer",
    "why",
}
OPTIONAL = {"rule"}


@dataclass(frozen=True)
class Row:
    where: str
    task: str
    label: str
    content: str | None
    finish_reason: str | None
    reasoning: str | None
    gold: str
    status: str
    answer: str | None
    rule: tuple[str | None] | None  # (the expected rule,) when the line names one


def load_rows() -> list[Row]:
    rows = []
    for path in sorted(DATA.glob("replies*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            data = json.loads(line)
            where = f"{path.name}:{number}"
            assert FIELDS <= set(data) <= FIELDS | OPTIONAL, f"{where}: fields {sorted(data)}"
            assert data["why"] and "\n" not in data["why"], f"{where}: 'why' is one line"
            rows.append(
                Row(
                    where,
                    data["task"],
                    f"{data['task']}/{data['class']}",
                    data["content"],
                    data["finish_reason"],
                    data["reasoning"],
                    data["gold"],
                    data["status"],
                    data["answer"],
                    (data["rule"],) if "rule" in data else None,
                )
            )
    return rows


def agreement(rows: list[Row]) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """Per class `(agreeing, total)`, and a line for each disagreement."""
    table: dict[str, list[int]] = {}
    misses = []
    for row in rows:
        verdict = score(row.task, row.content, row.finish_reason, row.gold, row.reasoning)
        counts = table.setdefault(row.label, [0, 0])
        counts[1] += 1
        rule_agrees = row.rule is None or row.rule == (verdict.rule,)
        if (verdict.status, verdict.answer) == (row.status, row.answer) and rule_agrees:
            counts[0] += 1
        else:
            misses.append(
                f"{row.where} [{row.label}] expected {row.status}/{row.answer}"
                f"{f' ({row.rule[0]})' if row.rule else ''}, "
                f"got {verdict.status}/{verdict.answer} ({verdict.rule})"
            )
    return {label: (c[0], c[1]) for label, c in sorted(table.items())}, misses


def test_corpus_is_large_and_covers_every_outcome() -> None:
    rows = [row for row in load_rows() if row.where.startswith("replies.jsonl")]
    assert len(rows) >= 400
    assert {row.task for row in rows} == {"gsm8k", "ceval", "boolq"}
    statuses = Counter(row.status for row in rows)
    assert all(statuses[s] for s in ("correct", "wrong", "no_answer", "empty", "unfinished"))


def test_strict_scoring_agrees_with_the_grader_per_class(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = load_rows()
    known = [row for row in rows if find_task(row.task) is not None]
    skipped = Counter(row.task for row in rows if find_task(row.task) is None)
    table, misses = agreement(known)
    with capsys.disabled():
        print(f"\nreply corpus: {len(known)} replies scored", end="")
        if skipped:
            unknown = f"unregistered tasks: {dict(skipped)}"
            print(f", {sum(skipped.values())} skipped ({unknown})", end="")
        print()
        for label, (agree, total) in table.items():
            print(f"  {label:34} {agree:4}/{total:<4} {100 * agree / total:6.1f}%")
    assert not misses, "\n".join(misses)
