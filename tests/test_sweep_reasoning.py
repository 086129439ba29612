"""The reasoning controls as sweep axes: `--grid reasoning.budget=...`, `reasoning.effort=...`
(and in the config's `sweep:` block), each variant a model copy with that control, refused
where the flavour has none, and the sweep table's budget check per variant."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import write_config
from thinkeval.cli import main
from thinkeval.client.reasoning_controls import ReasoningControls
from thinkeval.config import parse_config
from thinkeval.errors import ConfigError
from thinkeval.ops.sweep import expand, parse_grid

URL = "http://127.0.0.1:9/v1"


def _config(api: str = "vllm", **model: Any) -> dict[str, Any]:
    entry = {"name": "m", "base_url": URL, "api": api, **model}
    if api == "openai":
        entry["base_url"] = "https://api.openai.com/v1"
    return {"run": "r", "tasks": [{"name": "gsm8k", "limit": 3}], "models": [entry]}


def test_each_budget_and_effort_is_a_model_copy_with_that_control() -> None:
    data = _config(reasoning={"effort": "medium"})
    grid = parse_grid(["reasoning.budget=512,1024", "reasoning.effort=low,high"])
    config = expand(parse_config(data, "c.yaml"), grid)
    points = [(512, "low"), (512, "high"), (1024, "low"), (1024, "high")]
    assert [m.name for m in config.models] == [
        f"m[reasoning.budget={budget},reasoning.effort={effort}]" for budget, effort in points
    ]
    assert [m.reasoning for m in config.models] == [
        ReasoningControls(budget=budget, effort=effort) for budget, effort in points
    ]
    # An axis over the model's own controls keeps the other one.
    only_budget = expand(parse_config(data, "c.yaml"), parse_grid(["reasoning.budget=64"]))
    assert only_budget.models[0].reasoning == ReasoningControls(budget=64, effort="medium")
    # Each variant sends its own field.
    last = config.models[3]
    assert last.reasoning is not None
    fields = last.reasoning.fields(last.api)
    assert fields == {"thinking_token_budget": 1024, "reasoning_effort": "high"}


def test_the_config_block_takes_reasoning_axes() -> None:
    data = _config(api="sglang")
    data["sweep"] = {"grid": {"reasoning.budget": [256, 2048]}}
    config = expand(parse_config(data, "c.yaml"), [])
    assert [m.reasoning for m in config.models] == [
        ReasoningControls(budget=256),
        ReasoningControls(budget=2048),
    ]


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("reasoning.budget=512", "sweep: --grid reasoning.budget: model 'm': the openai API has "
         "no thinking-budget control (api: openai)"),
        ("reasoning.budget=lots", "sweep: --grid reasoning.budget: reasoning.budget=lots: give "
         "thinking tokens > 0"),
        ("reasoning.effort=extreme", "sweep: --grid reasoning.effort: reasoning.effort=extreme: "
         "give one of none|minimal|low|medium|high"),
        ("reasoning.depth=3", "sweep: --grid reasoning.depth: 'reasoning.depth' is not a "
         "reasoning control"),
    ],
)  # fmt: skip
def test_a_bad_reasoning_axis_is_refused_with_one_line(flag: str, expected: str) -> None:
    api = "openai" if "budget=512" in flag else "vllm"
    with pytest.raises(ConfigError) as raised:
        expand(parse_config(_config(api=api), "c.yaml"), parse_grid([flag]))
    message = str(raised.value)
    assert message.startswith(expected) and "\n" not in message, message


@pytest.mark.parametrize(
    ("grid", "expected"),
    [
        ({"reasoning.budget": [0]}, "c.yaml: sweep.grid.reasoning.budget: reasoning.budget=0: "
         "give thinking tokens > 0"),
        ({"reasoning.effort": ["big"]}, "c.yaml: sweep.grid.reasoning.effort: "
         "reasoning.effort=big: give one of"),
        ({"reasoning.level": [1]}, "c.yaml: sweep.grid.reasoning.level: 'reasoning.level' is "
         "not a reasoning control"),
    ],
)  # fmt: skip
def test_a_bad_reasoning_axis_in_the_block_names_file_and_key(
    grid: dict[str, Any], expected: str
) -> None:
    data = _config()
    data["sweep"] = {"grid": grid}
    with pytest.raises(ConfigError) as raised:
        parse_config(data, "c.yaml")
    message = str(raised.value)
    assert message.startswith(expected) and "\n" not in message, message


def test_the_block_refuses_a_budget_axis_for_a_flavour_without_one() -> None:
    data = _config(api="openai")
    data["sweep"] = {"grid": {"reasoning.budget": [512]}}
    with pytest.raises(ConfigError, match=r"^c\.yaml: sweep\.grid\.reasoning\.budget: model 'm': "
                       r"the openai API has no thinking-budget control"):  # fmt: skip
        parse_config(data, "c.yaml")
    data["sweep"] = {"grid": {"reasoning.effort": ["low", "high"]}}  # openai has an effort
    assert [m.reasoning for m in expand(parse_config(data, "c.yaml"), []).models] == [
        ReasoningControls(effort="low"),
        ReasoningControls(effort="high"),
    ]


@pytest.mark.parametrize("ignore", [False, True])
def test_the_sweep_table_shows_each_variant_s_budget_check(
    tmp_path: Path, sim: Any, capsys: pytest.CaptureFixture[str], ignore: bool
) -> None:
    server = sim(model="m", seed=3, ignore_reasoning_budget=ignore)
    config = write_config(
        tmp_path / "sweep.yaml",
        {
            "run": "study",
            "budgets": [1024, 2048],
            "tasks": [{"name": "gsm8k"}],
            "models": [{"name": "m", "base_url": server.base_url, "concurrency": 4}],
            "sweep": {"grid": {"reasoning.budget": [64, 128]}, "limit": 3},
        },
    )
    out = tmp_path / "out"
    assert main(["sweep", str(config), "--output", str(out)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    summary = json.loads((out / "summary.json").read_text())
    checks = {r["model"]: r["reasoning"] for r in summary["results"]}
    assert set(checks) == {"m[reasoning.budget=64]", "m[reasoning.budget=128]"}
    assert "reasoning budget check" in printed
    for name, budget in (("m[reasoning.budget=64]", 64), ("m[reasoning.budget=128]", 128)):
        block = checks[name]
        assert block["budget"] == budget and block["replies"] >= 3
        if ignore:
            assert block["check"] == "ignored" and block["over"] > 0
            assert f"ignored ({block['over']}/{block['replies']} over {budget})" in printed
        else:
            assert block["check"] == "respected" and block["max"] <= budget
            assert f"respected (0/{block['replies']} over {budget})" in printed
