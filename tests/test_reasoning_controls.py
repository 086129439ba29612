"""One `reasoning` key per model, sent as each server flavour's own field, refused where the
flavour has no such control, and checked after the run against the recorded reasoning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.client.reasoning import ReasoningControls, budget_kept
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


def test_a_dropped_budget_is_reported_after_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The simulator, like servers known to, accepts thinking_token_budget and ignores it."""
    rows = [{"q": f"What is {i} plus {i}?", "a": 2 * i} for i in range(4)]
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "sums.yaml").write_text(
        "name: sums\ndata: {file: sums.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [1024, 4096]\n"
    )
    server = ThreadedSim(SimConfig(port=0, seed=2, short_tokens=(300, 600)), {}).start()
    try:
        model = {"name": "m", "model": "sim-qwen3", "base_url": server.base_url,
                 "concurrency": 4, "reasoning": {"budget": 20}}  # fmt: skip
        data = {"run": "r", "models": [model], "tasks": [{"file": str(tmp_path / "sums.yaml")}]}
        path = write_config(tmp_path / "run.yaml", data)
        assert main(["run", str(path), "--output", str(tmp_path / "out")]) == 0
    finally:
        server.stop()
    attempts = list(iter_attempts(tmp_path / "out"))
    assert all(a.request["thinking_token_budget"] == 20 for a in attempts)
    err = " ".join(capsys.readouterr().err.split())
    assert "m: reasoning budget 20 (thinking_token_budget) NOT kept:" in err
