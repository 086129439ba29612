"""Runs for the report tests of repeats, per-task budgets and the judge scorer.

`demo_run` is `thinkeval demo --limit 8`: two simulated models on C-Eval, BoolQ and GSM8K at
2048 → 8192 and AIME 2025 asked four times per question at 16384 → 32768 (8 questions each), run
end to end over HTTP. `judged_run` copies it and runs `thinkeval judge` against the simulator
acting as a judge that reads 40% of the replies differently, then puts a hostile judge answer on
one reply (the judge is a model too: its text must stay text).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ThreadedSim
from thinkeval.results.judge import judge_path
from thinkeval.sim import SimConfig

DEMO_MODELS = ("sim-qwen3-8b-bf16", "sim-qwen3-8b-w8a8")
HOSTILE_ANSWER = "</script><img src=x onerror=alert(1)>"
K = 4  # the demo's AIME repeats
QUESTIONS = 8  # --limit


def _thinkeval(*args: str) -> None:
    """A thinkeval command in its own process: the browser tests' Playwright holds an event
    loop in this thread, and these commands run their own."""
    done = subprocess.run([sys.executable, "-m", "thinkeval", *args], capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr


def demo_run(folder: Path, data_dir: Path) -> Path:
    """`thinkeval demo --limit 8` into `folder/demo` (it writes the report too)."""
    run = folder / "demo"
    _thinkeval("demo", "--limit", str(QUESTIONS), "--output", str(run), "--data-dir", str(data_dir))
    return run


def judged_run(run: Path, folder: Path, answer_key: dict) -> Path:  # type: ignore[type-arg]
    """A copy of `run` judged by the simulator, with one hostile judge answer (the reply it
    belongs to is returned by `hostile_reply`)."""
    judged = folder / "judged"
    shutil.copytree(run, judged)
    judge = ThreadedSim(SimConfig(port=0, model="judge", seed=3, p_judge_disagree=0.4), answer_key)
    judge.start()
    try:
        _thinkeval("judge", str(judged), "--base-url", judge.base_url, "--model", "judge")
    finally:
        judge.stop()
    # The judge's latest verdict on one gsm8k reply: an answer made of markup.
    path = judge_path(judged)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    target = next(line for line in lines if line["task"] == "gsm8k" and line["status"] == "correct")
    hostile = {**target, "status": "wrong", "answer": HOSTILE_ANSWER}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(hostile) + "\n")
    return judged


def hostile_reply(judged: Path) -> tuple[str, str]:
    """(model, sample id) of the reply whose judge answer is hostile."""
    last = json.loads(judge_path(judged).read_text().splitlines()[-1])
    assert last["answer"] == HOSTILE_ANSWER
    return last["model"], last["sample_id"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """The small demo run (see the module docstring), once per test module."""
    return demo_run(tmp_path_factory.mktemp("demo"), data_dir)


@pytest.fixture(scope="module")
def judged(demo: Path, tmp_path_factory: pytest.TempPathFactory, answer_key: dict) -> Path:  # type: ignore[type-arg]
    """The demo run judged by the simulator, with one hostile judge answer."""
    return judged_run(demo, tmp_path_factory.mktemp("judged"), answer_key)
