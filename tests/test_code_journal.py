"""A LiveCodeBench problem's tests in the journal: a made-up release with large private tests
run end to end. Attempts journal the gold's digest, not the tests (kept once, in the run's
samples file); `thinkeval rescore` re-runs them from the run directory without the hub; an older
journal with the gold inline still rescores the same; a digest of other tests is stale."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from conftest import ThreadedSim, write_config
from fakehub import FakeHub
from thinkeval.cli import main
from thinkeval.ops.rescore import rescore_run
from thinkeval.records import GOLD_INLINE_MAX, gold_digest, journal_gold
from thinkeval.results.summary import write_summary
from thinkeval.sim.behaviour import answer_key_from_samples
from thinkeval.sim.config import SimConfig
from thinkeval.store.journal import iter_attempts
from thinkeval.tasks import load_samples
from thinkeval.tasks.livecodebench import REPO, REVISION

SUMS = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"


def _case(numbers: list[int]) -> dict[str, str]:
    text = " ".join(map(str, numbers))
    return {"input": text + "\n", "output": f"{sum(numbers)}\n", "testtype": "stdin"}


def _problem(qid: str, cases: int, width: int) -> bytes:
    """A problem whose private tests are `cases` inputs of `width` numbers each (large)."""
    tests = [_case([(n * 7919 + i) % 1000 for i in range(width)]) for n in range(cases)]
    private = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode()
    row = {
        "question_title": qid, "question_content": f"Print the sum of the integers read ({qid}).",
        "platform": "atcoder", "question_id": qid, "contest_id": "made-up",
        "contest_date": "2023-06-01T00:00:00", "starter_code": "", "difficulty": "easy",
        "public_test_cases": json.dumps([_case([1, 2])]),
        "private_test_cases": private,
        "metadata": "{}",
    }  # fmt: skip
    return json.dumps(row).encode() + b"\n"


@pytest.fixture
def large_hub(fake_hub: FakeHub) -> FakeHub:
    release = _problem("big_a", 12, 4000) + _problem("big_b", 12, 4000)
    fake_hub.add(REPO, {"test.jsonl": release}, commit=REVISION)
    return fake_hub


def _journal(run_dir: Path) -> Path:
    (journal,) = (run_dir / "journal").glob("*.jsonl")
    return journal


def rewrite_journal(run_dir: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    journal = _journal(run_dir)
    rows = [orjson.loads(line) for line in journal.read_bytes().splitlines()]
    journal.write_bytes(b"".join(orjson.dumps(change(row)) + b"\n" for row in rows))


def _accuracy(run_dir: Path) -> list[Any]:
    data = json.loads((run_dir / "summary.json").read_text())
    return [(r["task"], r["fixed"], r["total"]) for r in data["results"]]


def lcb_run(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Run the made-up release (`large_hub`) with the simulator, 4 replies per problem, half of
    the programs right; the run directory and each sample's gold (its tests, ~200 KB)."""
    samples = load_samples("livecodebench_v1", None)
    golds = {s.id: s.gold for s in samples}
    assert all(len(g) > 100 * GOLD_INLINE_MAX for g in golds.values())  # ~200 KB each
    # The simulator answers with a reference solution when it is right, a broken one if not.
    key = answer_key_from_samples(
        replace(s, gold=orjson.dumps({**orjson.loads(s.gold), "reference": SUMS}).decode())
        for s in samples
    )
    server = ThreadedSim(SimConfig(port=0, model="coder", seed=3, p_wrong=0.5), key).start()
    run_dir = tmp_path / "lcb"
    try:
        model = {"name": "coder", "base_url": server.base_url, "concurrency": 4}
        task = {"name": "livecodebench_v1", "repeats": 4, "budgets": [8192, 16384]}
        config = write_config(tmp_path / "lcb.yaml", {"run": "lcb", "tasks": [task],
                                                      "models": [model]})  # fmt: skip
        assert main(["run", str(config), "--output", str(run_dir)]) == 0
    finally:
        server.stop()
    return run_dir, golds


def test_large_tests_are_journalled_by_digest_and_rescore_from_the_run_dir(
    large_hub: FakeHub, tmp_path: Path
) -> None:
    run_dir, golds = lcb_run(tmp_path)
    attempts = [a for a in iter_attempts(run_dir) if a.error is None]
    assert len(attempts) >= 8
    statuses = {a.verdicts["strict"].status for a in attempts}
    assert statuses == {"correct", "wrong"}  # both kinds of verdict are recorded
    for attempt in attempts:
        assert attempt.gold is None and attempt.gold_digest == gold_digest(golds[attempt.sample_id])
        assert attempt.judged_against(golds[attempt.sample_id])
    # The tests are kept once, in the samples file; the journal holds a digest per attempt.
    samples_file = (run_dir / "samples" / "livecodebench_v1.jsonl").read_bytes()
    assert all(orjson.dumps(g) in samples_file for g in golds.values())
    compact = _journal(run_dir).stat().st_size
    inline = sum(
        len(orjson.dumps({**orjson.loads(line), "gold": golds[orjson.loads(line)["sample_id"]],
                          "gold_digest": None})) + 1
        for line in _journal(run_dir).read_bytes().splitlines()
    )  # fmt: skip
    print(f"journal of {len(attempts)} attempts: {compact} bytes, {inline} with golds inline")
    assert compact * 20 < inline, (compact, inline)
    first = _accuracy(run_dir)

    # Rescore needs no hub: every verdict is current (judged against these tests) and unchanged.
    large_hub.requests.clear()
    done = rescore_run(run_dir)
    assert large_hub.requests == []
    assert all(row.stale == 0 and row.changed == 0 for row in done.scorers)
    assert sum(row.replies for row in done.scorers) == 2 * len(attempts)
    assert _accuracy(run_dir) == first

    # Current digests mean the recorded verdicts count as they are (a recorded lie shows)...
    def lie(row: dict[str, Any]) -> dict[str, Any]:
        verdicts = {n: {**v, "status": "correct"} for n, v in row["verdicts"].items()}
        return {**row, "verdicts": verdicts}

    journal_bytes = _journal(run_dir).read_bytes()
    rewrite_journal(run_dir, lie)
    write_summary(run_dir)
    assert all(fixed["correct"] == total for _, fixed, total in _accuracy(run_dir))
    # ...a digest of other tests is stale: the programs run again, and the lie is undone.
    rewrite_journal(run_dir, lambda row: {**lie(row), "gold_digest": gold_digest("other tests")})
    done = rescore_run(run_dir)
    assert all(row.stale == row.replies for row in done.scorers)
    assert _accuracy(run_dir) == first

    # An older journal, with each attempt's gold inline, rescores to the same verdicts.
    _journal(run_dir).write_bytes(journal_bytes)
    inline = {"gold_digest": None}
    rewrite_journal(run_dir, lambda row: {**row, **inline, "gold": golds[row["sample_id"]]})
    assert _journal(run_dir).stat().st_size > 20 * compact
    done = rescore_run(run_dir)
    assert all(row.stale == 0 and row.changed == 0 for row in done.scorers)
    assert _accuracy(run_dir) == first


def test_short_golds_stay_inline() -> None:
    assert journal_gold("18") == ("18", None)
    long = "x" * (GOLD_INLINE_MAX + 1)
    inline, digest = journal_gold(long)
    assert inline is None and digest == gold_digest(long) and digest.startswith("blake2b:")
    assert len(digest) == len("blake2b:") + 32 and gold_digest(long + "y") != digest
