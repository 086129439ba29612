"""Censoring, truncation parity, the A/A noise floor and the behaviour deltas on a real run:
three models over HTTP against simulators (the baseline; its A/A copy, a second model entry
on the same server asked with another sampling seed; a quantized copy that reasons longer,
never finishes more often and loops), on GSM8K (120 questions) and AIME 2025 (15 × 4 repeats).

Each figure is checked against another path to it: summary.json's counts (the counting pass),
the journal read line by line, or the comparison of the A/A copy as a candidate.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ThreadedSim, write_config
from thinkeval.sim import SimConfig

BASE, COPY, CAND = "bf16", "bf16-again", "w8a8"


def _thinkeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "thinkeval", *args], capture_output=True,
                          text=True)  # fmt: skip


@pytest.fixture(scope="module")
def aa_run(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, answer_key: dict[str, Any]
) -> Iterator[tuple[Path, str]]:
    """(run directory, `thinkeval run`'s output)."""
    folder = tmp_path_factory.mktemp("aa")
    base = ThreadedSim(SimConfig(port=0, model=BASE, seed=1, p_never=0.02), answer_key).start()
    cand = ThreadedSim(
        SimConfig(port=0, model=CAND, seed=2, p_never=0.15, p_loop=0.7, short_tokens=(450, 1800)),
        answer_key,
    ).start()
    try:

        def model(name: str, server: ThreadedSim, served: str, seed: int) -> dict[str, Any]:
            return {"name": name, "base_url": server.base_url, "model": served,
                    "generation": {"seed": seed}}  # fmt: skip

        config = write_config(
            folder / "aa.yaml",
            {
                "run": "aa",
                "budgets": [2048, 8192],
                "tasks": [
                    "gsm8k",
                    {"name": "aime25", "repeats": 4, "budgets": [16384, 32768]},
                ],
                "models": [
                    model(BASE, base, BASE, 0),
                    model(COPY, base, BASE, 7),
                    model(CAND, cand, CAND, 0),
                ],
                "baseline": {"model": BASE, "noise_floor": COPY},
            },
        )
        run = folder / "aa"
        done = _thinkeval("run", str(config), "--output", str(run), "--data-dir", str(data_dir))
        assert done.returncode == 0, done.stderr
        yield run, done.stdout
    finally:
        base.stop()
        cand.stop()


def _compare(run: Path, *args: str) -> dict[str, Any]:
    done = _thinkeval("compare", str(run), "--json", *args)
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _row(result: dict[str, Any], task: str, phase: str, model: str = CAND) -> dict[str, Any]:
    candidate = next(c for c in result["candidates"] if c["model"] == model)
    return next(r for r in candidate["rows"] if r["task"] == task and r["phase"] == phase)


def _summary(run: Path) -> dict[tuple[str, str], dict[str, Any]]:
    data = json.loads((run / "summary.json").read_text())
    return {(r["model"], r["task"]): r for r in data["results"]}


def test_summary_and_terminal_bound_each_accuracy_by_its_unfinished_replies(
    aa_run: tuple[Path, str],
) -> None:
    run, stdout = aa_run
    summary = _summary(run)
    unfinished_after_last = 0
    for (model, task), result in summary.items():
        total = result["total"]
        for phase in ("fixed", "adaptive"):
            counts, bounds = result[phase], result["censoring"][phase]
            cut = counts["empty"] + counts["unfinished"]
            finished = counts["correct"] + counts["wrong"] + counts["no_answer"]
            assert bounds["unfinished"] == cut, (model, task, phase)
            assert bounds["lower"] == pytest.approx(counts["accuracy"])
            assert bounds["upper"] == pytest.approx((counts["correct"] + cut) / total)
            expected = counts["correct"] / finished if finished else None
            assert bounds["finished_accuracy"] == pytest.approx(expected)
        unfinished_after_last += result["censoring"]["adaptive"]["unfinished"]
    assert unfinished_after_last > 0  # the candidate never finishes some questions
    assert "unfinished after the last budget" in stdout
    cand = summary[(CAND, "gsm8k")]["censoring"]["adaptive"]
    assert f"{100 * cand['upper']:.2f}%" in stdout


def test_truncation_parity_is_flagged_and_refused_past_a_declared_gap(
    aa_run: tuple[Path, str], tmp_path: Path
) -> None:
    run, _ = aa_run
    summary = _summary(run)
    plain = _compare(run)
    row = _row(plain, "gsm8k", "adaptive")
    parity = row["truncation"]
    for model, key in ((BASE, "baseline_rate"), (CAND, "candidate_rate")):
        counts = summary[(model, "gsm8k")]["adaptive"]
        assert parity[key] == pytest.approx((counts["empty"] + counts["unfinished"]) / 120)
    gap = parity["candidate_rate"] - parity["baseline_rate"]
    assert parity["gap"] == pytest.approx(gap) and gap > 0.05
    assert parity["differs"] and parity["low"] > 0 and not parity["refused"]
    assert row["decision"] != "refused"
    text = _thinkeval("compare", str(run)).stdout
    assert "Truncation differs" in text and "refused:" not in text

    declared = round(100 * gap / 2, 3)  # points, half the observed gap
    refused = _compare(run, "--max-unfinished-gap", f"{declared:.3f}")
    got = _row(refused, "gsm8k", "adaptive")
    assert got["decision"] == "refused" and got["truncation"]["refused"]
    assert got["truncation"]["set_aside"] == row["decision"]
    assert refused["max_unfinished_gap"] == pytest.approx(declared / 100)
    mean = next(c for c in refused["candidates"] if c["model"] == CAND)["aggregate"]
    assert next(a for a in mean if a["phase"] == "adaptive")["decision"] == "refused"
    overall = next(c for c in refused["candidates"] if c["model"] == CAND)["overall"]
    adaptive = next(o for o in overall if o["phase"] == "adaptive")
    assert adaptive["decision"] in ("refused", "inferior")
    if adaptive["decision"] == "refused":
        assert "gsm8k" in adaptive["reason"]
    words = _thinkeval("compare", str(run), "--max-unfinished-gap", f"{declared:.3f}").stdout
    assert "refused: truncation parity" in words and "No verdict" in words
    # A gap wider than observed refuses nothing.
    wide = _compare(run, "--max-unfinished-gap", f"{100 * gap + 1:.3f}")
    assert _row(wide, "gsm8k", "adaptive")["decision"] == row["decision"]

    # The report's comparison section says the same, from the config's declared gap.
    copy = tmp_path / "declared"
    shutil.copytree(run, copy)
    config = json.loads((copy / "config.json").read_text())
    config["baseline"]["max_unfinished_gap"] = round(declared, 3)
    (copy / "config.json").write_text(json.dumps(config))
    done = _thinkeval("report", str(copy))
    assert done.returncode == 0, done.stderr
    assert "refused: truncation parity" in done.stdout
    assert "Unfinished replies: accuracy bounds" in done.stdout


def test_the_noise_floor_is_the_aa_copy_s_flips_beside_the_candidate_s(
    aa_run: tuple[Path, str],
) -> None:
    run, _ = aa_run
    result = _compare(run)
    assert result["noise_floor"] == COPY
    assert [c["model"] for c in result["candidates"]] == [CAND]  # the copy is not a candidate
    # The A/A copy compared as a candidate: its flips are the floor.
    aa = _compare(run, "--candidate", COPY)
    for task in ("gsm8k", "aime25"):
        for phase in ("fixed", "adaptive"):
            floor = _row(result, task, phase)["floor"]
            aa_row, row = _row(aa, task, phase, COPY), _row(result, task, phase)
            units = sum(map(sum, aa_row["flips"]["matrix"]))
            aa_flips = len(aa_row["flips"]["lost"]) + len(aa_row["flips"]["gained"])
            cand_flips = len(row["flips"]["lost"]) + len(row["flips"]["gained"])
            assert floor["source"] == f"A/A copy {COPY}"
            assert floor["flip_rate"] == pytest.approx(aa_flips / units)
            assert floor["candidate_flip_rate"] == pytest.approx(cand_flips / units)
            assert floor["excess"] == pytest.approx((cand_flips - aa_flips) / units)
            assert floor["aa_difference"] == pytest.approx(aa_row["difference"])
            tau = math.sqrt(max(0.0, aa_row["difference"] ** 2 - aa_row["se"] ** 2))
            assert floor["between_runs"] == pytest.approx(tau)
            z = 1.959963984540054 + 0.8416212335729143
            assert floor["mde_with_floor"] == pytest.approx(z * math.hypot(row["se"], tau))
    gsm8k = _row(result, "gsm8k", "fixed")["floor"]
    assert 0 < gsm8k["flip_rate"] < gsm8k["candidate_flip_rate"]
    text = _thinkeval("compare", str(run)).stdout
    assert f"{CAND}: noise floor of {BASE}" in text and f"A/A copy {COPY}" in text


def _reasoning(run: Path, model: str, task: str) -> dict[str, int]:
    """Fixed-phase reasoning tokens per sample, read from the journal line by line."""
    found: dict[str, int] = {}
    for line in (run / "journal" / "main.jsonl").read_text().splitlines():
        attempt = json.loads(line)
        where = (attempt["model"], attempt["task"], attempt["phase"])
        if where == (model, task, "fixed") and attempt.get("error") is None:
            found.setdefault(attempt["sample_id"], attempt["usage"]["reasoning_tokens"])
    return found


def test_behaviour_deltas_show_where_the_candidate_thinks_longer_and_loops(
    aa_run: tuple[Path, str],
) -> None:
    run, _ = aa_run
    row = _row(_compare(run), "gsm8k", "fixed")
    every = row["behaviour"][0]
    assert every["stratum"] == "all" and every["questions"] == 120
    base, cand = _reasoning(run, BASE, "gsm8k"), _reasoning(run, CAND, "gsm8k")
    logs = np.log([(cand[s] + 1) / (base[s] + 1) for s in base])
    length = every["length"]
    assert length["measure"] == "reasoning tokens"
    assert length["ratio"] == pytest.approx(math.exp(logs.mean()))
    assert length["low"] > 1  # the quantized copy reasons longer, with confidence
    # Loops: the share of replies the summary's diagnosis labels loop, each side.
    summary = _summary(run)
    loop = next(r for r in every["rates"] if r["label"] == "loop")
    for model, key in ((BASE, "baseline"), (CAND, "candidate")):
        labels = summary[(model, "gsm8k")]["diagnosis"]["phases"]["fixed"]["labels"]
        assert loop[key] == pytest.approx(labels.get("loop", 0) / 120)
    assert loop["difference"] > 0 and loop["low"] > 0
    strata = {s["stratum"]: s["questions"] for s in row["behaviour"][1:]}
    assert set(strata) <= {"baseline right", "baseline not right"}
    assert sum(strata.values()) == 120
    aime = _row(_compare(run), "aime25", "adaptive")["behaviour"]
    assert {s["stratum"] for s in aime[1:]} <= {"solved every repeat", "solved some",
                                               "solved none"}  # fmt: skip
    assert sum(s["questions"] for s in aime[1:]) == aime[0]["questions"]
    text = _thinkeval("compare", str(run)).stdout
    assert f"Where {CAND} reasons longer than {BASE} with confidence:" in text


def _fixed_correct(run: Path, model: str, task: str) -> dict[tuple[str, int], bool]:
    """Fixed-phase strict correctness per (sample, repeat), read from the journal."""
    found: dict[tuple[str, int], bool] = {}
    for line in (run / "journal" / "main.jsonl").read_text().splitlines():
        attempt = json.loads(line)
        where = (attempt["model"], attempt["task"], attempt["phase"])
        if where == (model, task, "fixed") and attempt.get("error") is None:
            status = attempt["verdicts"]["strict"]["status"]
            found.setdefault((attempt["sample_id"], attempt["repeat"]), status == "correct")
    return found


def _edited(run: Path, folder: Path, change: Any) -> Path:
    copy = folder / "edited"
    shutil.copytree(run, copy)
    config = json.loads((copy / "config.json").read_text())
    change(config)
    (copy / "config.json").write_text(json.dumps(config))
    return copy


def test_without_a_copy_the_floor_is_the_baseline_s_pairs_of_repeats(
    aa_run: tuple[Path, str], tmp_path: Path
) -> None:
    run, _ = aa_run
    plain = _edited(run, tmp_path, lambda c: c["baseline"].pop("noise_floor"))
    result = _compare(plain)
    assert result["noise_floor"] is None
    assert {c["model"] for c in result["candidates"]} == {COPY, CAND}
    assert _row(result, "gsm8k", "fixed")["floor"] is None  # one reply per question: none
    floor = _row(result, "aime25", "fixed")["floor"]
    correct = _fixed_correct(run, BASE, "aime25")
    questions = sorted({sample for sample, _ in correct})
    pairs = [(r, s) for r in range(4) for s in range(r + 1, 4)]
    flips = [correct[(q, r)] != correct[(q, s)] for q in questions for r, s in pairs]
    assert floor["source"] == "repeats" and floor["units"] == len(questions) * 6
    assert floor["flip_rate"] == pytest.approx(sum(flips) / len(flips))
    assert floor["aa_difference"] is None and floor["mde_with_floor"] is None


def test_an_aa_copy_asked_differently_is_refused_unless_allowed(
    aa_run: tuple[Path, str], tmp_path: Path
) -> None:
    run, _ = aa_run

    def hotter(config: dict[str, Any]) -> None:
        copy = next(m for m in config["models"] if m["name"] == COPY)
        copy["generation"]["temperature"] = 1.0

    edited = _edited(run, tmp_path, hotter)
    done = _thinkeval("compare", str(edited))
    assert done.returncode == 2
    assert f"the noise floor {COPY} was not asked like for like with {BASE}" in done.stderr
    assert "temperature" in done.stderr and "Traceback" not in done.stderr
    allowed = _compare(edited, "--allow-mismatch")
    assert _row(allowed, "gsm8k", "fixed")["floor"]["source"] == f"A/A copy {COPY}"
