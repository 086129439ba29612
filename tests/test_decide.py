"""`decide:`: the baseline and a candidate asked in lockstep until the verdict is settled.

The statistics are checked on paired differences drawn as the simulator couples two models
with the same seed (a candidate with a higher `p_wrong` is wrong on a superset of the
baseline's questions); the runs go over real HTTP to two simulators, on the real BoolQ.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ThreadedSim, write_config
from test_run import model_entry, stats
from thinkeval.cli import main
from thinkeval.errors import ThinkevalError
from thinkeval.ops.compare import compare_runs
from thinkeval.ops.verify import verify_run
from thinkeval.results.sequential import (
    DECISION_CODES,
    log_capital,
    looks,
    sequence_bounds,
    settled_at,
)
from thinkeval.store.journal import iter_attempts

ALPHA = 0.05


def _losses(rng: np.random.Generator, reps: int, n: int, loss: float) -> np.ndarray:
    """Pairs where the candidate only loses answers, at rate `loss` (true Δ = -loss)."""
    return -(rng.random((reps, n)) < loss).astype(np.float64)


def test_the_bet_on_each_difference_sees_only_the_earlier_ones() -> None:
    d = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], size=200)
    changed = d.copy()
    changed[120:] = -changed[120:]
    before, after = log_capital(d, -0.02), log_capital(changed, -0.02)
    assert np.array_equal(before[:120], after[:120])
    assert not np.array_equal(before[120:], after[120:])


def test_false_non_inferior_and_false_inferior_stay_under_alpha_at_the_margin() -> None:
    # At a true drop of exactly the margin, both claims are false; with a look every 50
    # questions over 1000, each may be made in at most 5% of runs.
    rng = np.random.default_rng(7)
    margin = 0.02
    d = _losses(rng, 2000, 1000, margin)
    at = np.arange(50, 1001, 50)
    _, codes = settled_at(d, at, margin, ALPHA, "non-inferior")
    decided = np.array(DECISION_CODES)[codes]
    assert np.mean(np.isin(decided, ["equivalent", "non-inferior"])) <= ALPHA
    assert np.mean(decided == "inferior") <= ALPHA  # not worse than the margin either
    # Gains and losses at 5% each (no difference, much noise): "inferior" stays rare.
    noisy = _losses(rng, 2000, 1000, 0.05) - _losses(rng, 2000, 1000, 0.05)
    _, codes = settled_at(noisy, at, margin, ALPHA, "equivalent")
    assert np.mean(np.array(DECISION_CODES)[codes] == "inferior") <= ALPHA


def test_clear_cases_settle_early_and_the_sequence_covers_the_difference() -> None:
    same = np.zeros(1000)
    found = looks(same, list(range(100, 1001, 100)), 0.01, ALPHA, "equivalent")
    first = next(look for look in found if look.settled)
    assert first.decision == "equivalent" and first.n <= 600
    drop = _losses(np.random.default_rng(3), 1, 1000, 0.05)[0]
    found = looks(drop, list(range(100, 1001, 100)), 0.01, ALPHA, "equivalent")
    first = next(look for look in found if look.settled)
    assert first.decision == "inferior" and first.n <= 600
    low, high = sequence_bounds(drop[: first.n], ALPHA)
    assert low < drop[: first.n].mean() < high < -0.01


def _servers(sim: Any, drop: float) -> tuple[ThreadedSim, ThreadedSim]:
    knobs = {"model": "m", "seed": 5}
    return sim(**knobs), sim(p_wrong=0.12 + drop, **knobs)


def _config(path: Path, base: ThreadedSim, cand: ThreadedSim, limit: int, **decide: Any) -> Path:
    return write_config(
        path,
        {
            "run": path.stem,
            "tasks": [{"name": "boolq", "limit": limit}],
            "models": [
                model_entry("base", base.base_url, model="m"),
                model_entry("cand", cand.base_url, model="m"),
            ],
            "baseline": {"model": "base", "margin": 2},
            "decide": {"batch": 50, **decide},
        },
    )


def _asked(run_dir: Path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for attempt in iter_attempts(run_dir):
        out.setdefault(attempt.model, set()).add(attempt.sample_id)
    return out


def _decide_json(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "decide.json").read_text())
    return data


@pytest.mark.real_data
@pytest.mark.parametrize(("drop", "verdict"), [(0.0, "equivalent"), (0.08, "inferior")])
def test_a_clear_case_stops_early_and_compare_gives_the_same_verdict(
    tmp_path: Path, sim: Any, capsys: pytest.CaptureFixture[str], drop: float, verdict: str
) -> None:
    base, cand = _servers(sim, drop)
    out = tmp_path / "out"
    assert main(["run", str(_config(tmp_path / "seq.yaml", base, cand, 600)), "--output",
                 str(out)]) == 0  # fmt: skip
    said = "".join(capsys.readouterr())
    record = _decide_json(out)
    (task,) = record["tasks"]
    assert task["state"] == "settled" and task["asked"] < task["size"] == 600
    assert task["verdicts"][0]["decision"] == verdict
    assert f"boolq: stopped early at {task['asked']} of 600 questions" in said
    # Only the questions dealt were asked, the same ones of both models, in the recorded order.
    asked = _asked(out)
    assert asked["base"] == asked["cand"] and len(asked["base"]) == task["asked"]
    assert [look["admitted"] for look in task["looks"]] == list(range(50, task["asked"] + 1, 50))
    checked = verify_run(out)  # complete over the questions dealt
    assert checked.ok and {t.samples for t in checked.tasks} == {task["asked"]}

    assert main(["compare", str(out)]) == 0
    shown = capsys.readouterr().out
    assert f"cand on boolq: {verdict} at ±2.00 pp" in shown
    assert f"stopped early at {task['asked']} of 600 questions" in shown
    assert main(["compare", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == record  # the run's own looks, by its rule
    report = subprocess.run(
        [sys.executable, "-m", "thinkeval", "report", str(out), "--format", "md"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert f"decide: cand on boolq: {verdict} at ±2.00 pp" in report
    assert "cand against the baseline base" not in report  # no fixed-n section on it


@pytest.mark.real_data
def test_a_fixed_n_test_on_a_stopped_run_is_refused(
    tmp_path: Path, sim: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = _servers(sim, 0.0)
    out = tmp_path / "out"
    assert main(["run", str(_config(tmp_path / "seq.yaml", base, cand, 400)), "--output",
                 str(out)]) == 0  # fmt: skip
    with pytest.raises(ThinkevalError, match="fixed-n test on its sample"):
        compare_runs([out], "base")
    capsys.readouterr()
    assert main(["compare", str(out), str(out)]) == 2
    assert "would not keep the declared error rates" in capsys.readouterr().err
    assert main(["compare", str(out), "--margin", "5"]) == 2
    assert "drop --margin" in capsys.readouterr().err


def _numbers(record: dict[str, Any]) -> list[Any]:
    return [
        (t["task"], t["asked"], t["state"], t["order"], t["looks"], t["verdicts"], t["tokens"])
        for t in record["tasks"]
    ]


@pytest.mark.real_data
def test_a_run_killed_mid_batch_resumes_to_the_same_looks_and_stop(
    tmp_path: Path, sim: Any
) -> None:
    slow = {"latency_s": 0.01}
    clean_base, clean_cand = _servers(sim, 0.04)
    base = sim(model="m", seed=5, **slow)
    cand = sim(model="m", seed=5, p_wrong=0.16, **slow)
    clean = tmp_path / "clean"
    assert main(["run", str(_config(tmp_path / "clean.yaml", clean_base, clean_cand, 800)),
                 "--output", str(clean)]) == 0  # fmt: skip

    killed = tmp_path / "killed"
    config = _config(tmp_path / "killed.yaml", base, cand, 800)
    command = [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(killed)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    # Past the first look, in the middle of a later batch.
    while proc.poll() is None and time.monotonic() < deadline:
        path = killed / "decide.json"
        if path.exists() and len(_decide_json(killed)["tasks"][0]["looks"]) >= 2:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stopped = _decide_json(killed)["tasks"][0]
    assert stopped["state"] == "asking"  # killed before the stop
    assert subprocess.run(command, capture_output=True).returncode == 0

    assert _numbers(_decide_json(killed)) == _numbers(_decide_json(clean))
    assert _asked(killed) == _asked(clean)


@pytest.mark.real_data
def test_repeats_decide_on_per_question_means_and_a_decided_run_asks_nothing_more(
    tmp_path: Path, sim: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = _servers(sim, 0.0)
    config = _config(tmp_path / "rep.yaml", base, cand, 300)
    text = config.read_text().replace("limit: 300", "limit: 300\n  repeats: 2")
    config.write_text(text.replace("temperature: 0.0", "temperature: 0.6\n    seed: 0"))
    out = tmp_path / "out"
    assert main(["run", str(config), "--output", str(out)]) == 0
    (task,) = _decide_json(out)["tasks"]
    assert task["state"] == "settled" and task["asked"] < 300
    assert task["verdicts"][0]["decision"] == "equivalent"
    repeats = {(a.sample_id, a.repeat) for a in iter_attempts(out) if a.model == "cand"}
    assert len(repeats) == 2 * task["asked"]  # both repeats of every question dealt
    journal = (out / "journal" / "main.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["run", str(config), "--output", str(out)]) == 0
    assert (out / "journal" / "main.jsonl").read_bytes() == journal  # nothing asked again
    assert "questions not dealt stay pending" in " ".join("".join(capsys.readouterr()).split())


@pytest.mark.parametrize("flags", [("--tasks", "boolq"), ("--model", "cand"), ("--shard", "1/2")])
def test_a_decide_run_refuses_what_breaks_the_lockstep(
    tmp_path: Path, sim: Any, capsys: pytest.CaptureFixture[str], flags: tuple[str, str]
) -> None:
    base, cand = _servers(sim, 0.0)
    config = _config(tmp_path / "seq.yaml", base, cand, 10)
    out = tmp_path / "out"
    assert main(["run", str(config), "--output", str(out), *flags]) == 2
    err = capsys.readouterr().err
    assert f"drop {flags[0]}" in err and err.count("error:") == 1
    assert stats(base.base_url)["requests"] == 0 == stats(cand.base_url)["requests"]
