"""`thinkeval compare` and `plan`: the decisions the issue's "done when" names, comparability,
and the report's section agreeing with the command to the digit.

The decisions at full-task sizes run on outcome arrays coupled as the simulator couples two
models with the same seed (one uniform draw per sample: wrong below p_wrong), so a candidate
with a higher p_wrong is wrong on a superset of the baseline's samples; the rest runs
`thinkeval demo --limit 8` (two simulated models over HTTP) and edits its config.json.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from statistics import NormalDist
from typing import Any

import msgspec
import numpy as np
import pytest

from reported_runs import DEMO_MODELS, demo  # noqa: F401  (a fixture)
from thinkeval.errors import ThinkevalError
from thinkeval.ops.compare import compare_runs, plan
from thinkeval.ops.schema import json_schema
from thinkeval.report import build_report, render_markdown
from thinkeval.report._tables_compare import compare_section, sentence
from thinkeval.report.sections.baseline import SECTION as BASELINE
from thinkeval.results.compare import PhaseData, SideData, compare_phase
from thinkeval.results.compare_model import Candidate, CompareResult, Margin
from thinkeval.ui.compare import render_blocks

BASE, CAND = DEMO_MODELS


def _side(model: str, wrong: np.ndarray) -> SideData:
    codes = np.where(wrong, 1, 0).astype(np.int8)[:, None]
    shape = codes.shape
    data = PhaseData(
        codes=codes,
        reasoning=np.full(shape, 500, dtype=np.int32),
        completion=np.full(shape, 700, dtype=np.int32),
        hit_budget=np.zeros(shape, dtype=bool),
        latency=np.ones(shape),
        retry_candidates=np.zeros(shape, dtype=bool),
    )
    return SideData(model=model, run="sim", phases={"fixed": data, "adaptive": data})


def _coupled(
    n: int, p_wrong: float, extra: float, seed: int = 0
) -> tuple[list[str], SideData, SideData]:
    u = np.random.default_rng(seed).random(n)
    ids = [f"q{i}" for i in range(n)]
    return ids, _side("bf16", u < p_wrong), _side("w8a8", u < p_wrong + extra)


def test_full_gsm8k_a_fraction_of_a_point_apart_is_equivalent_at_2_points() -> None:
    ids, base, cand = _coupled(1319, 0.10, 0.004)
    row = compare_phase("gsm8k", "fixed", ids, base, cand, Margin(points=0.02))
    assert row is not None
    assert -0.01 < row.difference < 0
    assert row.decision == "equivalent"
    assert row.flips is not None and len(row.flips.lost) == round(-row.difference * 1319)
    assert row.flips.matrix[0][1] == len(row.flips.lost)  # correct -> wrong


def test_five_percent_more_wrong_is_inferior() -> None:
    ids, base, cand = _coupled(1319, 0.10, 0.05)
    row = compare_phase("gsm8k", "fixed", ids, base, cand, Margin(points=0.02))
    assert row is not None and row.decision == "inferior"
    assert row.significant and row.high < -0.02


def test_small_ceval_with_a_one_point_gap_is_inconclusive_with_its_mde() -> None:
    ids, base, cand = _coupled(233, 0.25, 0.01, seed=4)
    row = compare_phase("ceval", "fixed", ids, base, cand, Margin(points=0.01))
    assert row is not None
    assert round(-row.difference * 233) >= 2  # a gap of about one point
    assert row.decision == "inconclusive" and not row.significant
    assert row.settle is not None and "questions" in row.settle
    result = CompareResult(
        baseline="bf16", runs=["sim"], alpha=0.05, power=0.8, margin=Margin(points=0.01),
        candidates=[],
    )  # fmt: skip
    candidate = Candidate(
        model="w8a8", like_for_like=True, differences=[], rows=[row], aggregate=[], overall=[]
    )
    text = sentence(row, result, candidate)
    mde = f"{100 * row.mde:.2f} pp"
    assert "no significant difference" in text and f"detects {mde} with 80% power" in text
    assert row.mde > 0.02  # the run could not have seen a 2-point drop reliably


def _with_config(run: Path, folder: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    copy = folder / "changed"
    shutil.copytree(run, copy)
    path = copy / "config.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return copy


def _thinkeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "thinkeval", *args], capture_output=True,
                          text=True)  # fmt: skip


def test_different_temperatures_are_refused_unless_allowed(demo: Path, tmp_path: Path) -> None:  # noqa: F811
    def hotter(data: dict[str, Any]) -> None:
        data["models"][1]["generation"]["temperature"] = 0.6

    changed = _with_config(demo, tmp_path, hotter)
    with pytest.raises(ThinkevalError, match=r"gsm8k: temperature 0\.0 vs 0\.6") as caught:
        compare_runs([changed], BASE)
    assert "--allow-mismatch" in str(caught.value)
    result = compare_runs([changed], BASE, allow_mismatch=True)
    candidate = result.candidates[0]
    assert not candidate.like_for_like and any("temperature" in d for d in candidate.differences)
    text = render_blocks(compare_section(result).blocks)
    header = text.split("Overall")[0]  # the heading and the mismatch block
    assert "Not like for like" in header and "temperature 0.0 vs 0.6" in header
    assert all("(not like for like)" in o for o in text.splitlines() if "Overall" in o)
    done = _thinkeval("compare", str(changed), "--baseline", BASE)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "temperature 0.0 vs 0.6" in done.stderr


def test_the_demo_compares_its_candidate_with_its_baseline(demo: Path) -> None:  # noqa: F811
    """The demo's config names the baseline: config.json records it, the report written by
    the demo has the section right after the headline, and `compare` needs no --baseline."""
    assert json.loads((demo / "config.json").read_text())["baseline"] == BASE
    markdown = (demo / "report.md").read_text()
    section = markdown.split(f"## 2. Against the baseline {BASE}\n")[1].split("\n## 3. ")[0]
    assert f"### {CAND} against the baseline {BASE}" in section
    assert "- Overall, fixed: " in section and "- Overall, adaptive: " in section
    done = _thinkeval("compare", str(demo))
    assert done.returncode == 0, done.stderr
    result = compare_runs([demo], None)
    assert result.baseline == BASE and [c.model for c in result.candidates] == [CAND]
    assert BASELINE.numbers(build_report([demo])).comparison == result


def test_report_section_and_compare_agree_to_the_digit(demo: Path, tmp_path: Path) -> None:  # noqa: F811
    def named(data: dict[str, Any]) -> None:
        data["baseline"] = {"model": BASE, "margin": 2}

    changed = _with_config(demo, tmp_path, named)
    report = build_report([changed])
    assert BASELINE.numbers(report).comparison is not None
    command = compare_runs([changed], None)  # the baseline and margin come from the config
    assert command == BASELINE.numbers(report).comparison
    assert command.candidates[0].rows[0].margin == Margin(points=0.02, source="config")
    done = _thinkeval("compare", str(changed))
    assert done.returncode == 0, done.stderr
    markdown = render_markdown(report)
    checked = 0
    for block in compare_section(command).blocks:
        if block.table is None:
            continue
        for cells in block.table.rows:
            printed = [line for line in done.stdout.splitlines() if line.startswith(cells[0])]
            assert any(all(cell in line for cell in cells) for line in printed), cells
            assert "| " + " | ".join(cells) + " |" in markdown.replace("\\", "")
            checked += 1
    assert checked > 8
    as_json = _thinkeval("compare", str(changed), "--json")
    assert msgspec.json.decode(as_json.stdout, type=CompareResult) == command


def test_schema_and_plan() -> None:
    schema = json_schema("compare")
    assert "decision" in schema["$defs"]["PhaseComparison"]["required"]
    found = plan("gsm8k", 1.0, 0.05, 1)
    assert found.noninferior == 3092 and found.equivalent > found.noninferior
    assert found.available == 120  # the fixture data
    assert found.repeats_needed == 26
    assert plan("gsm8k", 1.0, 0.05, 4).noninferior == 773
    with pytest.raises(ThinkevalError, match="--margin must be positive"):
        plan("gsm8k", 0.0)
    done = _thinkeval("plan", "--task", "gsm8k", "--margin", "1")
    assert done.returncode == 0 and "3092 questions" in done.stdout


def test_an_inconclusive_drop_beyond_the_margin_says_what_shows_it_inferior() -> None:
    ids, base, cand = _coupled(233, 0.25, 0.015, seed=2)  # 4 of 233 lost
    row = compare_phase("ceval", "fixed", ids, base, cand, Margin(points=0.01))
    assert row is not None and row.decision == "inconclusive"
    assert row.difference < -0.01 < row.high
    sd = row.se * math.sqrt(row.questions)
    expected = math.ceil((NormalDist().inv_cdf(0.95) * sd / (-0.01 - row.difference)) ** 2)
    assert row.settle is not None
    assert f"or about {expected} if the drop is as observed (then inferior)" in row.settle
    assert row.candidate is not None and row.candidate.cost.completion_p50 == 700
    assert row.candidate.cost.reasoning_p90 == 500
