"""`thinkeval judge`: a judge model (the simulator in judge mode) reads every finished reply."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import msgspec
import pytest

from conftest import write_config
from thinkeval.cli import main
from thinkeval.report import build_report, render_markdown
from thinkeval.report.sections.scorers import SECTION as SCORERS
from thinkeval.results.judge import judge_agreement
from thinkeval.results.summary import Summary, summarize
from thinkeval.scoring.judge import JudgeReplyError, judge_prompt, parse_judge_reply
from thinkeval.scoring.kinds import make_kind
from thinkeval.sim.judge import judge_answer
from thinkeval.store.rundir import judge_path
from thinkeval.ui.tables import results_table

TASKS = [
    {"name": "gsm8k", "limit": 16},
    {"name": "ceval", "limit": 8},
    {"name": "boolq", "limit": 8},
]


def requests(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as resp:
        return int(json.load(resp)["requests"])


def judged_run(tmp_path: Path, sim) -> Path:
    server = sim(model="m", seed=4, p_long=0.3, p_malformed=0.1, p_wrong=0.2, p_empty=0.1)
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "judged", "tasks": TASKS, "models": [{"name": "m", "base_url": server.base_url}]},
    )
    run_dir = tmp_path / "run"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    return run_dir


def judge(run_dir: Path, base_url: str, *extra: str) -> int:
    return main(["judge", str(run_dir), "--base-url", base_url, "--model", "judge", *extra])


def verdict_lines(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in judge_path(run_dir).read_text().splitlines()]


def test_a_faithful_judge_agrees_with_strict_and_changes_nothing(tmp_path: Path, sim) -> None:
    run_dir = judged_run(tmp_path, sim)
    journal = (run_dir / "journal" / "main.jsonl").read_bytes()
    before = json.loads((run_dir / "summary.json").read_text())
    judge_server = sim(model="judge", seed=9, p_judge_disagree=0.0)

    assert judge(run_dir, judge_server.base_url) == 0
    lines = verdict_lines(run_dir)
    assert lines and all(line["error"] is None for line in lines)
    assert requests(judge_server.base_url) == len(lines)
    assert {line["prompt_version"] for line in lines} == {"judge-1"}
    assert {line["judge_model"] for line in lines} == {"judge"}
    agreement = judge_agreement(run_dir)
    assert set(agreement) == {("m", "gsm8k"), ("m", "ceval"), ("m", "boolq")}
    for found in agreement.values():
        assert found.judged and not found.disagreements and not found.not_judged
        assert found.judge_correct == found.strict_correct

    # The journal and strict numbers are untouched; the summary gains the judge's numbers,
    # beside every other scorer's (`scorers.judge`) and its own block (agreement).
    assert (run_dir / "journal" / "main.jsonl").read_bytes() == journal
    after = json.loads((run_dir / "summary.json").read_text())
    for old, new in zip(before["results"], after["results"], strict=True):
        assert old["judge"] is None and "judge" not in old["scorers"]
        judge_block = new.pop("judge")
        scorer = new["scorers"].pop("judge")
        assert {k: v for k, v in new.items() if k != "written_at"} == {
            k: v for k, v in old.items() if k not in ("judge", "written_at")
        }
        assert judge_block["agreement"] == 1.0
        assert judge_block["adaptive_accuracy"] == new["adaptive"]["accuracy"]
        assert scorer == {
            "fixed_correct": new["fixed"]["correct"],
            "fixed_accuracy": judge_block["fixed_accuracy"],
            "adaptive_correct": new["adaptive"]["correct"],
            "adaptive_accuracy": new["adaptive"]["accuracy"],
            "version": "judge-1",
        }
    # The terminal's table and the report show it as one more scorer.
    table = results_table(summarize(run_dir))
    assert [c.header for c in table.columns][-3:] == ["lenient fixed", "judge fixed", "errors"]
    report = build_report([run_dir])
    shown = {(r.model, r.task): r for r in SCORERS.numbers(report).scorers if r.scorer == "judge"}
    for row in summarize(run_dir).results:
        assert shown[row.model, row.task].fixed == row.scorers["judge"].fixed_accuracy
        assert shown[row.model, row.task].on_cut_fixed == 0  # it reads finished replies only
    markdown = render_markdown(report)
    assert markdown.count("Strict vs judge") == 1 and "Agreement with strict" in markdown
    # A summary written before the judge was keyed with the scorers reads it from its block.
    legacy = json.loads((run_dir / "summary.json").read_text())
    for row in legacy["results"]:
        row["scorers"].pop("judge")
    read = msgspec.convert(legacy, Summary).results
    for row, now in zip(read, summarize(run_dir).results, strict=True):
        assert row.scorers["judge"].fixed_correct == now.scorers["judge"].fixed_correct
        assert row.scorers["judge"].version is None

    # Judged replies are not asked again.
    assert judge(run_dir, judge_server.base_url) == 0
    assert requests(judge_server.base_url) == len(lines)


def test_disagreements_are_listed_and_the_run_resumes(tmp_path: Path, sim, capsys) -> None:
    run_dir = judged_run(tmp_path, sim)
    judge_server = sim(model="judge", seed=9, p_judge_disagree=0.4, fault_500=0.3)
    code = judge(run_dir, judge_server.base_url, "--concurrency", "4", "--max-retries", "0")
    lines = verdict_lines(run_dir)
    failed = [line for line in lines if line["error"] is not None]
    assert failed and code == 1
    while failed:  # each run asks again exactly what failed
        asked = requests(judge_server.base_url)
        code = judge(run_dir, judge_server.base_url, "--max-retries", "0")
        new = verdict_lines(run_dir)[len(lines) :]
        assert {(x["sample_id"], x["phase"]) for x in new} == {
            (x["sample_id"], x["phase"]) for x in failed
        }
        assert requests(judge_server.base_url) >= asked + len(failed)
        lines = verdict_lines(run_dir)
        failed = [line for line in new if line["error"] is not None]
        assert code == (1 if failed else 0)

    agreement = judge_agreement(run_dir)
    disagreeing = {d.sample_id for found in agreement.values() for d in found.disagreements}
    assert disagreeing, "a judge that reads 40% of replies differently disagrees somewhere"
    for found in agreement.values():
        assert found.not_judged == 0
        for item in found.disagreements:
            assert (item.strict_status, item.strict_answer) != (
                item.judge_status,
                item.judge_answer,
            )
        assert found.disagreeing_ids == list(dict.fromkeys(found.disagreeing_ids))
    printed = capsys.readouterr().out
    assert "strict vs judge" in printed and next(iter(disagreeing)) in printed
    assert "[fixed]: strict" in printed or "[retry]: strict" in printed

    # A torn last line (a judge killed mid-write) is cut and its reply asked again.
    path = judge_path(run_dir)
    data = path.read_bytes()
    last = json.loads(data.rstrip(b"\n").rsplit(b"\n", 1)[-1])
    path.write_bytes(data[: len(data) - 25])
    asked = requests(judge_server.base_url)
    judge(run_dir, judge_server.base_url)
    assert requests(judge_server.base_url) >= asked + 1
    tail = verdict_lines(run_dir)[-1]
    assert (tail["sample_id"], tail["phase"]) == (last["sample_id"], last["phase"])


def test_bad_input_is_one_line_error(tmp_path: Path, sim, capsys, monkeypatch) -> None:
    assert judge(tmp_path, "http://127.0.0.1:9/v1") == 2
    assert "not a thinkeval run directory" in capsys.readouterr().err
    monkeypatch.delenv("JUDGE_KEY", raising=False)
    assert judge(tmp_path, "http://127.0.0.1:9/v1", "--api-key-env", "JUDGE_KEY") == 2
    assert "JUDGE_KEY" in capsys.readouterr().err
    run_dir = judged_run(tmp_path, sim)
    judge_path(run_dir).parent.mkdir(exist_ok=True)
    judge_path(run_dir).write_text('{"model": "m"}\n')
    assert judge(run_dir, "http://127.0.0.1:9/v1") == 2
    assert "judge.jsonl:1" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text", ["", "18", "The answer is 18", '{"result": "18"}', '["18"]', '{"answer": [1]}']
)
def test_judge_replies_must_be_the_json_asked_for(text: str) -> None:
    with pytest.raises(JudgeReplyError):
        parse_judge_reply(text)


def test_judge_reply_forms() -> None:
    assert parse_judge_reply('```json\n{"answer": "B"}\n```') == "B"
    assert parse_judge_reply('{"answer": 18}') == "18"
    assert parse_judge_reply('{"answer": "  "}') is None


def test_the_simulated_judge_reads_the_prompt() -> None:
    prompt = judge_prompt(make_kind("choice", letters="ABCD"), "Q?", "分析……\n\n故选C。")
    assert json.loads(judge_answer(prompt, False)) == {"answer": "C"}
    assert json.loads(judge_answer(prompt, True)) == {"answer": "A"}
    prompt = judge_prompt(make_kind("number"), "Q?", "I am not sure")
    assert json.loads(judge_answer(prompt, False)) == {"answer": None}
