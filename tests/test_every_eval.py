"""`thinkeval export`: the Every Eval Ever aggregate and instance-level files of the demo agree
with the run's summary, link to each other, and map the outcome classes as documented."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from reported_runs import DEMO_MODELS, demo  # noqa: F401  (a fixture)
from thinkeval.ops.every_eval import _instance
from thinkeval.records import Attempt, Sample
from thinkeval.results.loaded import load_run

CLASSES = {"correct", "wrong", "no_answer", "empty", "unfinished", "error"}
AGGREGATE_KEYS = {
    "schema_version",
    "evaluation_id",
    "retrieved_timestamp",
    "source_metadata",
    "model_info",
    "eval_library",
    "evaluation_results",
}
INSTANCE_KEYS = {
    "schema_version",
    "evaluation_id",
    "model_id",
    "evaluation_name",
    "sample_id",
    "interaction_type",
    "input",
    "answer_attribution",
    "evaluation",
}


def test_export_agrees_with_the_summary(demo: Path, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "eee"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "thinkeval",
            "export",
            str(demo),
            "--out",
            str(out),
            "--relationship",
            "third_party",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    run = load_run(demo)
    budgets = {(r.model, r.task): r.budgets for r in run.summary.results}
    for model in DEMO_MODELS:
        aggregate = json.loads((out / f"{model}.json").read_text())
        assert set(aggregate) >= AGGREGATE_KEYS
        assert aggregate["source_metadata"]["evaluator_relationship"] == "third_party"
        samples = out / aggregate["detailed_evaluation_results"]["file_path"]
        lines = samples.read_text().splitlines()
        detailed = aggregate["detailed_evaluation_results"]
        assert detailed["checksum"] == hashlib.sha256(samples.read_bytes()).hexdigest()
        assert detailed["total_rows"] == len(lines)
        records = [json.loads(line) for line in lines]
        correct: Counter[str] = Counter()
        units: Counter[str] = Counter()
        for record in records:
            assert set(record) >= INSTANCE_KEYS
            assert record["evaluation_id"] == aggregate["evaluation_id"]
            outcome = record["metadata"]["outcome"]
            assert outcome in CLASSES
            assert record["evaluation"]["is_correct"] == (outcome == "correct")
            assert record["evaluation"]["score"] == float(outcome == "correct")
            phase = record["metadata"]["phase"]
            task = record["evaluation_name"]
            b1, b2 = budgets[(model, task)]
            assert int(record["metadata"]["budget"]) in ((b1,) if phase == "fixed" else (b1, b2))
            correct[record["evaluation_result_id"]] += record["evaluation"]["is_correct"]
            units[record["evaluation_result_id"]] += 1
        for result in run.summary.results:
            if result.model != model:
                continue
            for phase, block in (("fixed", result.fixed), ("adaptive", result.adaptive)):
                key = f"{result.task}/{phase}"
                entry = next(
                    e for e in aggregate["evaluation_results"] if e["evaluation_result_id"] == key
                )
                assert entry["score_details"]["score"] == block.accuracy
                assert correct[key] == block.correct
                assert units[key] == result.total - block.pending
                details = entry["score_details"]["details"]
                assert int(details["correct"]) == block.correct
                assert sum(int(details[c]) for c in (*CLASSES, "pending")) == result.total


def test_an_error_is_not_correct_and_keeps_its_message() -> None:
    sample = Sample(
        id="gsm8k/0", task="gsm8k", messages=({"role": "user", "content": "q"},), gold="18"
    )
    attempt = Attempt(
        model="m",
        task="gsm8k",
        sample_id="gsm8k/0",
        phase="fixed",
        budget=2048,
        max_tokens=2048,
        error="timeout after 3600 s",
    )
    record = _instance("e", "m", sample, 0, "fixed", "error", None, attempt)
    assert record["evaluation"] == {"score": 0.0, "is_correct": False, "num_turns": 1}
    assert record["error"] == "timeout after 3600 s" and record["answer_attribution"] == []
    assert record["metadata"]["outcome"] == "error" and record["token_usage"] is None
    assert record["input"] == {
        "raw": "q",
        "formatted": json.dumps(list(sample.messages)),
        "reference": ["18"],
    }
