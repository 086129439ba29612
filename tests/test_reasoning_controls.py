"""One `reasoning` key per model, sent as each server flavour's own field, refused where the
flavour has no such control, and checked after the run against the recorded reasoning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.client.reasoning_controls import ReasoningControls, budget_kept
from thinkeval.config import load_config
from thinkeval.errors import ConfigError
from thinkeval.sim.config import SimConfig
from thinkeval.store.journal import iter_attempts


@pytest.mark.parametrize(
    ("api", "fields"),
    [
        ("vllm", {"thinking_token_budget": 512, "reasoning_effort": "low"}),
        ("sglang", {"thinking_budget": 512, "reasoning_effort": "low"}),
        ("llamacpp", {"reasoning_budget_tokens": 512, "reasoning_effort": "low"}),
    ],
)
def test_each_flavour_gets_its_own_fields(api: str, fields: dict[str, object]) -> None:
    assert ReasoningControls(budget=512, effort="low").fields(api) == fields


def test_openai_takes_an_effort_and_refuses_a_budget(tmp_path: Path) -> None:
    assert ReasoningControls(effort="high").fields("openai") == {"reasoning_effort": "high"}
    model = {"name": "o", "base_url": "https://api.openai.com/v1", "api": "openai",
             "reasoning": {"budget": 512}}  # fmt: skip
    path = write_config(tmp_path / "c.yaml", {"run": "r", "models": [model], "tasks": ["gsm8k"]})
    with pytest.raises(ConfigError, match=r"reasoning\.budget: the openai API has no thinking"):
        load_config(path)


def test_budget_kept_counts_replies_over_it() -> None:
    assert budget_kept(100, [50, 100, 108, 109, None]) == (1, 4)


def _sums(tmp_path: Path) -> Path:
    rows = [{"q": f"What is {i} plus {i}?", "a": 2 * i} for i in range(6)]
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "sums.yaml").write_text(
        "name: sums\ndata: {file: sums.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [1024, 4096]\n"
    )
    return tmp_path / "sums.yaml"


def _run(tmp_path: Path, ignore: bool, reasoning: dict[str, object], profile: str = "vllm-latest",
         api: str = "vllm") -> Path:  # fmt: skip
    """A run of six sums against the simulator (short reasoning: 300 to 600 tokens)."""
    task = _sums(tmp_path)
    sim = SimConfig(port=0, seed=2, short_tokens=(300, 600), p_long=0.0, p_never=0.0,
                    profile=profile, ignore_reasoning_budget=ignore)  # fmt: skip
    server = ThreadedSim(sim, {}).start()
    try:
        model = {"name": "m", "model": "sim-qwen3", "base_url": server.base_url, "api": api,
                 "concurrency": 4, "reasoning": reasoning}  # fmt: skip
        data = {"run": "r", "models": [model], "tasks": [{"file": str(task)}]}
        path = write_config(tmp_path / "run.yaml", data)
        assert main(["run", str(path), "--output", str(tmp_path / "out")]) == 0
    finally:
        server.stop()
    return tmp_path / "out"


def test_a_dropped_budget_is_reported_as_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The simulator, like servers known to, accepts thinking_token_budget and ignores it."""
    out = _run(tmp_path, ignore=True, reasoning={"budget": 100})
    attempts = list(iter_attempts(out))
    assert all(a.request["thinking_token_budget"] == 100 for a in attempts)
    assert all((a.usage.reasoning_tokens or 0) > 108 for a in attempts)
    block = json.loads((out / "summary.json").read_text())["results"][0]["reasoning"]
    assert block["check"] == "ignored" and block["over"] == block["replies"] == len(attempts)
    assert block["counted"] == len(attempts) and block["budget_field"] == "thinking_token_budget"
    assert block["limit_counted"] == 108 and block["p50"] > 300
    err = " ".join(capsys.readouterr().err.split())
    n = len(attempts)
    expected = (
        f"m on sums: reasoning budget 100 (thinking_token_budget) ignored: {n} of {n} "
        f"replies reasoned past 100 tokens, p50 {block['p50']:.0f}, p90 "
    )
    assert expected in err
    # `thinkeval report` regenerated from the journal says the same, in Markdown and HTML.
    assert main(["report", str(out), "--out", str(tmp_path / "r.md")]) == 0
    markdown = (tmp_path / "r.md").read_text()
    assert "Reasoning controls" in markdown
    assert f"| m | 100 (thinking_token_budget) | – | {n} | {n} | {block['p50']:.0f} |" in markdown
    assert f"- m: budget 100 (thinking_token_budget) ignored: {n} of {n} replies" in markdown


def test_a_kept_budget_is_reported_as_respected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(tmp_path, ignore=False, reasoning={"budget": 100, "effort": "low"})
    assert all(a.usage.reasoning_tokens == 100 for a in iter_attempts(out))
    err = " ".join(capsys.readouterr().err.split())
    expected = (
        "m on sums: reasoning budget 100 (thinking_token_budget) respected: all 6 replies "
        "within 100 tokens, p50 100, p90 100, max 100 (server-counted reasoning tokens); "
        "effort low (reasoning_effort): no length check is possible for an effort"
    )
    assert expected in err
    block = json.loads((out / "summary.json").read_text())["results"][0]["reasoning"]
    assert (block["check"], block["over"], block["effort"]) == ("respected", 0, "low")
    assert main(["report", str(out), "--format", "html", "--out", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "Reasoning controls" in page and "respected: all 6 replies within 100 tokens" in page


def test_sglang_reads_its_own_field(tmp_path: Path) -> None:
    out = _run(tmp_path, ignore=False, reasoning={"budget": 50}, profile="sglang", api="sglang")
    assert all(a.request["thinking_budget"] == 50 for a in iter_attempts(out))
    block = json.loads((out / "summary.json").read_text())["results"][0]["reasoning"]
    assert (block["check"], block["budget_field"], block["max"]) == (
        "respected",
        "thinking_budget",
        50,
    )


def test_lengths_are_estimated_where_the_server_counts_none(tmp_path: Path) -> None:
    """vLLM 0.10 reports no usage.reasoning_tokens: the check estimates, and says so."""
    out = _run(tmp_path, ignore=True, reasoning={"budget": 50}, profile="vllm-0.10")
    assert all(a.usage.reasoning_tokens is None for a in iter_attempts(out))
    block = json.loads((out / "summary.json").read_text())["results"][0]["reasoning"]
    assert (
        block["estimated"] == block["replies"] > 0
        and block["counted"] == 0
        and block["check"] == "ignored"
    )
    assert block["limit_estimated"] == 71 and block["over"] == block["replies"]


def test_an_effort_alone_is_recorded_and_not_checked(tmp_path: Path) -> None:
    out = _run(tmp_path, ignore=False, reasoning={"effort": "high"})
    block = json.loads((out / "summary.json").read_text())["results"][0]["reasoning"]
    assert block["check"] == "effort_only" and block["effort"] == "high"
    assert (
        block["budget"] is None
        and block["over"] == 0
        and block["replies"] == len(list(iter_attempts(out)))
    )
    assert main(["report", str(out), "--out", str(tmp_path / "r.md")]) == 0
    markdown = (tmp_path / "r.md").read_text()
    assert "effort only: not checked" in markdown
    assert "no length check is possible for an effort" in markdown


def test_the_simulator_flag_turns_the_budget_off() -> None:
    import argparse

    from thinkeval.sim.cli import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args([]).ignore_reasoning_budget is False
    assert parser.parse_args(["--ignore-reasoning-budget"]).ignore_reasoning_budget is True
