"""A reply that did not end normally is never an answer: `abort`, `content_filter` and a
finish_reason no server documents, sent by a real HTTP server (the simulator with
`finish_stop_as`), are `unfinished` in the journal, the summary, `thinkeval rescore` and
`thinkeval.score()` alike, and the adaptive phase asks them again once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import thinkeval
from conftest import write_config
from thinkeval.api import FINISH_REASONS
from thinkeval.cli import main

# Every prompt answered correctly after a short think, so only the finish reason can make a
# reply anything but `correct`.
CLEAN = {"seed": 3, "p_long": 0.0, "p_never": 0.0, "p_wrong": 0.0, "p_malformed": 0.0}
CLEAN |= {"p_empty": 0.0}
SAMPLES = 4


def _run(tmp_path: Path, sim: Any, **knobs: Any) -> tuple[Path, list[dict[str, Any]]]:
    server = sim(model="m", **CLEAN, **knobs)
    model = {"name": "m", "base_url": server.base_url, "concurrency": 4, "retry_backoff_s": 0.01}
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "finish", "tasks": [{"name": "gsm8k", "limit": SAMPLES}], "models": [model]},
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    journal = run_dir / "journal" / "main.jsonl"
    return run_dir, [json.loads(line) for line in journal.read_text().splitlines()]


def _gsm8k(run_dir: Path) -> dict[str, Any]:
    summary = json.loads((run_dir / "summary.json").read_text())
    (row,) = [r for r in summary["results"] if r["task"] == "gsm8k"]
    return dict(row)


def test_the_same_replies_ending_with_stop_are_correct(tmp_path: Path, sim: Any) -> None:
    """The control: without the override every reply is a finished, correct answer."""
    run_dir, rows = _run(tmp_path, sim)
    assert len(rows) == SAMPLES
    assert {row["finish_reason"] for row in rows} == {"stop"}
    assert {row["verdicts"]["strict"]["status"] for row in rows} == {"correct"}
    assert _gsm8k(run_dir)["fixed"]["correct"] == SAMPLES


@pytest.mark.parametrize("reason", ["abort", "content_filter", "eos_token"])
def test_a_reply_that_did_not_end_normally_is_unfinished_everywhere(
    tmp_path: Path, sim: Any, capsys: pytest.CaptureFixture[str], reason: str
) -> None:
    run_dir, rows = _run(tmp_path, sim, finish_stop_as=reason)
    # Asked at B1, unfinished, asked again once at B2: unfinished again.
    assert sorted(row["phase"] for row in rows) == ["fixed"] * SAMPLES + ["retry"] * SAMPLES
    for row in rows:
        assert row["finish_reason"] == reason and row["state"] == "unfinished"
        strict = row["verdicts"]["strict"]
        assert (strict["status"], strict["rule"]) == ("unfinished", f"finish-{reason}")
        # The text itself states the right answer: only the finish reason withholds it.
        assert thinkeval.score("gsm8k", row["content"], "stop", row["gold"]).status == "correct"
    fixed = _gsm8k(run_dir)["fixed"]
    assert fixed["correct"] == 0 and fixed["unfinished"] == SAMPLES

    capsys.readouterr()
    assert main(["rescore", str(run_dir), "--json"]) == 0
    rescored = json.loads(capsys.readouterr().out)
    strict = [r for r in rescored["scorers"] if r["scorer"] == "strict"]
    assert strict and all(r["changed"] == 0 for r in strict)
    assert _gsm8k(run_dir)["fixed"] == fixed

    # The report counts them unfinished, strict none correct (lenient, AISBench's reading,
    # ignores the finish reason by design and counts them all).
    report = tmp_path / "report.json"
    assert main(["report", str(run_dir), "--format", "json", "--out", str(report)]) == 0
    (counts,) = [row["counts"] for row in json.loads(report.read_text())["breakdown"]]
    assert counts["fixed"]["unfinished"] == counts["retry"]["unfinished"] == SAMPLES
    assert counts["scorers"]["strict"]["adaptive_correct"] == 0
    assert counts["scorers"]["lenient"]["fixed_correct"] == SAMPLES

    row = rows[0]
    if reason in FINISH_REASONS:
        verdict = thinkeval.score("gsm8k", row["content"], reason, row["gold"])
        assert (verdict.status, verdict.rule) == ("unfinished", f"finish-{reason}")
    else:  # the caller's typo is refused; the server's unknown value was never an answer
        with pytest.raises(thinkeval.ArgumentError, match="finish_reason"):
            thinkeval.score("gsm8k", row["content"], reason, row["gold"])
