"""Reasoning benchmarks with repeated sampling, end to end against the simulator: aime24, aime25
(k = 4) and math500; the metrics, seeds per repeat, resume after SIGKILL, shards, verify."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ThreadedSim, kill_and_resume, write_config
from thinkeval.cli import main
from thinkeval.ops.verify import verify_run
from thinkeval.results.questions import compare_models, repeat_details
from thinkeval.results.summary import write_summary
from thinkeval.scoring.kinds import math as math_kind
from thinkeval.scoring.lenient import RULES
from thinkeval.sim import SimConfig, answer_key_from_samples
from thinkeval.store.journal import iter_attempts
from thinkeval.tasks import load_samples

TASKS = [
    {"name": "aime24", "repeats": 4},
    {"name": "aime25", "repeats": 4},
    {"name": "math500", "limit": 40},
]


@pytest.fixture(scope="module")
def math_key(data_dir: Path) -> dict[str, tuple[str, str]]:
    samples = [s for t in ("aime24", "aime25", "math500") for s in load_samples(t, data_dir)]
    return answer_key_from_samples(samples)


@pytest.fixture
def math_sim(math_key: dict[str, tuple[str, str]]) -> Iterator[Any]:
    started: list[ThreadedSim] = []

    def start(**knobs: Any) -> str:
        config = SimConfig(port=0, model="m", p_long=0.25, p_wrong=0.3, **knobs)
        started.append(ThreadedSim(config, math_key).start())
        return started[-1].base_url

    yield start
    for server in started:
        server.stop()


def write_run(path: Path, url: str, run: str = "maths", **model: Any) -> Path:
    entry = {"name": "m", "base_url": url, "concurrency": 16, "retry_backoff_s": 0.01,
             "generation": {"seed": 100}, **model}  # fmt: skip
    return write_config(path, {"run": run, "tasks": TASKS, "models": [entry]})


def numbers(run_dir: Path) -> dict[str, Any]:
    data = json.loads((run_dir / "summary.json").read_text())
    keep = ("total", "fixed", "retry", "adaptive", "lenient", "subjects", "repeated")
    return {r["task"]: {k: r[k] for k in keep} for r in data["results"]}


def test_reasoning_run_with_repeats_gives_the_metrics(
    tmp_path: Path, math_sim: Any, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    questions = {t: len(load_samples(t, data_dir)) for t in ("aime24", "aime25")}
    run_dir = tmp_path / "out"
    assert main(["run", str(write_run(tmp_path / "run.yaml", math_sim(seed=1))),
                 "--output", str(run_dir)]) == 0  # fmt: skip
    rows = numbers(run_dir)
    assert {t: rows[t]["total"] for t in questions} == {t: 4 * n for t, n in questions.items()}
    assert rows["math500"]["total"] == 40 and rows["math500"]["repeated"] is None
    assert set(rows["math500"]["subjects"]) <= {
        "Algebra", "Counting & Probability", "Geometry", "Intermediate Algebra",
        "Number Theory", "Prealgebra", "Precalculus",
    }  # fmt: skip
    details = repeat_details(run_dir)
    assert set(details) == {("m", "aime24"), ("m", "aime25")}
    for (_, task), detail in details.items():
        block = rows[task]["repeated"]
        n = questions[task]
        assert block["k"] == 4 and block["questions"] == n == len(detail.questions)
        for phase in ("fixed", "adaptive"):
            metrics = block[phase]
            solved = [
                (q.solved_fixed if phase == "fixed" else q.solved_adaptive)
                for q in detail.questions
            ]
            # avg@k is the accuracy over all replies, which the counts also give.
            assert metrics["avg"]["value"] == pytest.approx(rows[task][phase]["accuracy"])
            assert metrics["avg"]["value"] == pytest.approx(sum(solved) / (4 * n))
            assert metrics["solved"] == [solved.count(c) for c in range(5)]
            for j in (1, 2, 4):
                expected = sum(1 - math.comb(4 - c, j) / math.comb(4, j) for c in solved) / n
                assert metrics["pass_at"][str(j)]["value"] == pytest.approx(expected)
            assert metrics["maj"]["value"] == pytest.approx(_reference_maj(detail, phase))
            for interval in (metrics["avg"], metrics["maj"], *metrics["pass_at"].values()):
                assert interval["low"] <= interval["value"] <= interval["high"]
        assert block["adaptive"]["avg"]["value"] >= block["fixed"]["avg"]["value"]
    # Each repeat samples with seed + r; its retry with the same seed.
    seeds: dict[tuple[str, str, int], set[int]] = {}
    for attempt in iter_attempts(run_dir):
        seeds.setdefault((attempt.task, attempt.sample_id, attempt.repeat), set()).add(
            attempt.request["seed"]
        )
    assert all(found == {100 + key[2]} for key, found in seeds.items())
    per_repeat = Counter(key[2] for key in seeds if key[0] == "aime25")
    assert per_repeat == dict.fromkeys(range(4), questions["aime25"])
    versus = compare_models(details["m", "aime24"], details["m", "aime24"])
    assert (versus.value, versus.low, versus.high) == (0.0, 0.0, 0.0)
    # Verdicts recorded by another scorer version are scored again, in the scoring workers and
    # never here (Math-Verify in this process would raise): the summary is the same.
    journal = run_dir / "journal" / "main.jsonl"
    journal.write_text(re.sub(r'"version":"[^"]*"', '"version":"old"', journal.read_text()))

    def not_here(*args: object) -> None:
        raise AssertionError("Math-Verify ran in the summary's own process")

    monkeypatch.setattr(math_kind, "equivalent", not_here)
    monkeypatch.setitem(RULES, "math", not_here)
    write_summary(run_dir)
    assert numbers(run_dir) == rows


def _reference_maj(detail: Any, phase: str) -> float:
    """maj@k computed another way: correct answers form one group (all equal the gold), wrong
    ones group by their text (the simulator writes a wrong value one way only)."""
    total = 0.0
    for question in detail.questions:
        votes = [
            (r.fixed, r.fixed_answer) if phase == "fixed" else (r.adaptive, r.adaptive_answer)
            for r in question.repeats
        ]
        right = sum(status == "correct" for status, _ in votes)
        wrong = Counter(answer for status, answer in votes if status == "wrong")
        top = max([right, *wrong.values()])
        if top == 0:
            continue
        tied = [size for size in [right, *wrong.values()] if size == top]
        total += (right == top) / len(tied)
    return total / len(detail.questions)


def test_sigkill_mid_run_then_resume_gives_the_identical_summary(
    tmp_path: Path, math_sim: Any
) -> None:
    slow = {"seed": 11, "per_token_s": 0.000002, "latency_s": 0.01}
    clean = write_run(tmp_path / "clean.yaml", math_sim(**slow), run="clean")
    killed = write_run(tmp_path / "killed.yaml", math_sim(**slow), run="killed")
    assert main(["run", str(clean), "--output", str(tmp_path / "clean")]) == 0
    kill_and_resume(killed, tmp_path / "killed", kills=3, every=40)
    assert numbers(tmp_path / "killed") == numbers(tmp_path / "clean")
    units = Counter(
        (a.task, a.sample_id, a.repeat, a.phase) for a in iter_attempts(tmp_path / "killed")
        if a.error is None
    )  # fmt: skip
    assert set(units.values()) == {1}


def test_shards_split_the_repeats_and_verify_checks_each(tmp_path: Path, math_sim: Any) -> None:
    url = math_sim(seed=12)
    single = write_run(tmp_path / "single.yaml", url, run="single")
    assert main(["run", str(single), "--output", str(tmp_path / "single")]) == 0
    sharded = write_run(tmp_path / "sharded.yaml", url, run="sharded")
    for shard in ("1/3", "2/3", "3/3"):
        assert main(["run", str(sharded), "--output", str(tmp_path / "sharded"),
                     "--shard", shard]) == 0  # fmt: skip
    assert numbers(tmp_path / "sharded") == numbers(tmp_path / "single")
    writers = {a.shard for a in iter_attempts(tmp_path / "sharded") if a.task == "aime25"}
    assert len(writers) == 3
    assert verify_run(tmp_path / "sharded").ok
    # Drop one repeat's fixed attempt: verify names exactly that (sample, repeat).
    journal = tmp_path / "single" / "journal" / "main.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    gone = next(
        i for i, line in enumerate(lines)
        if '"sample_id":"aime25/3"' in line and '"repeat":2' in line and '"phase":"fixed"' in line
    )  # fmt: skip
    journal.write_text("".join(lines[:gone] + lines[gone + 1 :]))
    found = verify_run(tmp_path / "single")
    assert not found.ok
    check = next(c for c in found.tasks if c.task == "aime25")
    assert check.missing_fixed == ["aime25/3#2"]
