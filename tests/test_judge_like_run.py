"""`thinkeval judge` behaves like `run`: the judge model is checked up front (a wrong id or a
server that is down is one line, nothing asked), a judge server that dies mid-way stops the
command with the verdicts so far recorded and resumable, progress is shown, and the judge's
accuracy is marked incomplete while some replies have no verdict."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from conftest import write_config
from thinkeval.cli import main
from thinkeval.store.rundir import judge_path

TASKS = [{"name": "gsm8k", "limit": 12}]


def _run(tmp_path: Path, sim) -> Path:
    server = sim(model="m", seed=4, p_long=0.2, p_wrong=0.2)
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "judged", "tasks": TASKS, "models": [{"name": "m", "base_url": server.base_url}]},
    )
    run_dir = tmp_path / "run"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    return run_dir


def _verdicts(run_dir: Path) -> list[dict[str, object]]:
    path = judge_path(run_dir)
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_a_wrong_judge_model_id_is_one_line_and_nothing_is_asked(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _run(tmp_path, sim)
    judge = sim(model="judge", seed=9)
    capsys.readouterr()
    code = main(["judge", str(run_dir), "--base-url", judge.base_url, "--model", "jugde"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1
    assert "serves judge, not 'jugde': pass one of those with --model" in captured.err
    assert "404" not in captured.err + captured.out and "0.00%" not in captured.out
    assert _verdicts(run_dir) == []


def test_a_judge_server_that_is_down_is_one_line_at_once(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _run(tmp_path, sim)
    capsys.readouterr()
    started = time.monotonic()
    code = main(["judge", str(run_dir), "--base-url", "http://127.0.0.1:9/v1", "--model", "j",
                 "--max-retries", "0"])  # fmt: skip
    assert code == 2 and time.monotonic() - started < 20
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot reach http://127.0.0.1:9/v1" in err


def test_a_judge_server_dying_midway_stops_with_the_verdicts_recorded_then_resumes(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _run(tmp_path, sim)
    judge = sim(model="judge", seed=9, latency_s=0.3)
    threading.Timer(1.2, judge.stop).start()
    flags = ["--concurrency", "1", "--max-retries", "50", "--unreachable-after-s", "1"]
    code = main(["judge", str(run_dir), "--base-url", judge.base_url, "--model", "judge", *flags])
    err = capsys.readouterr().err
    assert code == 2
    assert "the judge server stopped answering" in err and "run the same command again" in err
    first = [v for v in _verdicts(run_dir) if v["error"] is None]
    assert first, "verdicts received before the server died stay recorded"

    again = sim(model="judge", seed=9)
    assert main(["judge", str(run_dir), "--base-url", again.base_url, "--model", "judge"]) == 0
    out = capsys.readouterr().out
    recorded = [v for v in _verdicts(run_dir) if v["error"] is None]
    keys = [(v["sample_id"], v["phase"]) for v in recorded]
    assert len(keys) == len(set(keys)), "nothing judged twice"
    assert "not judged" in out and "(incomplete" not in out


def test_the_judge_accuracy_is_marked_incomplete_while_replies_are_not_judged(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _run(tmp_path, sim)
    judge = sim(model="judge", seed=9, fault_500=0.7)
    capsys.readouterr()
    code = main(["judge", str(run_dir), "--base-url", judge.base_url, "--model", "judge",
                 "--max-retries", "0"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "(incomplete:" in out and "not judged)" in out
    assert "counts as not correct for the judge" in out
