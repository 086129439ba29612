"""The lenient scorer is AISBench's scoring, exactly: checked on AISBench's own outputs.

tests/data/aisbench_lenient.jsonl holds replies (the labelled corpus, odd cases, seeded random
text) with what AISBench 3.1's real code made of them: the stored prediction, the text after
`extract_non_reasoning_content`, the post-processor's extraction and the evaluator's verdict
(tests/data/make_aisbench_lenient.py wrote it). Every line must agree, so CI checks the
agreement without installing AISBench. Where AISBench is installed (`THINKEVAL_AISBENCH_PYTHON`
names its interpreter), a fresh seed of random replies is scored by both, live.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from thinkeval.scoring.lenient import aisbench_prediction, lenient_text, lenient_verdict

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "aisbench_lenient.jsonl"
GENERATOR = DATA / "make_aisbench_lenient.py"
# What each post-processor returns when it finds nothing.
NOTHING = {"gsm8k": "NULL", "first-capital": "", "last-option-ABCD": "", "aime": ""}


def disagreements(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for number, row in enumerate(rows, 1):
        content, reasoning, rule = row["content"], row["reasoning"], row["rule"]
        problems = []
        if aisbench_prediction(content, reasoning) != row["prediction"]:
            problems.append("prediction")
        if lenient_text(content, reasoning) != row["text"]:
            problems.append("text")
        verdict = lenient_verdict(rule, content, reasoning, row["gold"])
        if verdict.is_correct != row["correct"]:
            problems.append(f"correct {verdict.is_correct} vs {row['correct']}")
        if row["raises"] is not None:
            if not (verdict.rule or "").startswith("aisbench-raises"):
                problems.append(f"AISBench raises {row['raises']}")
        elif rule in NOTHING and row["text"]:
            expected = None if row["extracted"] == NOTHING[rule] else row["extracted"]
            if verdict.answer != expected:
                problems.append(f"answer {verdict.answer!r} vs {expected!r}")
        if problems:
            out.append(f"line {number} [{rule}] {'; '.join(problems)}: {row['content']!r}")
    return out


def test_lenient_agrees_with_aisbench_on_every_recorded_case() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    assert len(rows) > 1500
    rules = {"gsm8k", "first-capital", "last-option-ABCD", "aime", "math"}
    assert {row["rule"] for row in rows} == rules
    assert any(row["raises"] for row in rows) and any(row["correct"] for row in rows)
    problems = disagreements(rows)
    assert not problems, f"{len(problems)} of {len(rows)} disagree:\n" + "\n".join(problems[:40])


@pytest.mark.skipif(
    not os.environ.get("THINKEVAL_AISBENCH_PYTHON"),
    reason="set THINKEVAL_AISBENCH_PYTHON to an interpreter with AISBench 3.1 installed",
)
def test_lenient_agrees_with_installed_aisbench_on_fresh_random_text(tmp_path: Path) -> None:
    out = tmp_path / "fresh.jsonl"
    python = os.environ["THINKEVAL_AISBENCH_PYTHON"]
    done = subprocess.run(
        [python, str(GENERATOR), "--out", str(out), "--seed", str(os.getpid())],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    problems = disagreements(rows)
    assert not problems, f"{len(problems)} of {len(rows)} disagree:\n" + "\n".join(problems[:40])


def test_installed_aisbench_is_used_in_process_when_importable() -> None:
    """Where `ais_bench` imports in this interpreter, its post-processors must match ours."""
    tp = pytest.importorskip(
        "ais_bench.benchmark.utils.postprocess.text_postprocessors",
        reason="ais_bench is not importable here (the recorded corpus covers CI)",
    )
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["rule"] == "last-option-ABCD":
            assert tp.last_option_postprocess(row["text"], "ABCD") == row["extracted"]
        elif row["rule"] == "first-capital":
            assert tp.first_capital_postprocess(row["text"]) == row["extracted"]
