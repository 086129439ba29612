"""`thinkeval sweep` from the config: the `sweep:` block, flags over it, and prompt variants
(`prompts:`, `--grid prompt=A,B`) asked with their own system message and template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import write_config
from thinkeval.cli import main
from thinkeval.client.profiles import ServerProfile
from thinkeval.config import PromptVariant, parse_config
from thinkeval.errors import ConfigError
from thinkeval.ops.sweep import expand, parse_grid

URL = "http://127.0.0.1:9/v1"
PROMPTS = {
    "plain": {},
    "boxed": {"template": "{prompt}\nPut the final answer within \\boxed{}."},
    "terse": {"system": "Think briefly."},
}


def _config(**extra: Any) -> dict[str, Any]:
    return {
        "run": "r",
        "tasks": [{"name": "gsm8k", "limit": 30}],
        "models": [{"name": "m", "base_url": URL, "generation": {"seed": 1}}],
        **extra,
    }


def _names(data: dict[str, Any], flags: list[str], **options: Any) -> list[str]:
    config = expand(parse_config(data, "c.yaml"), parse_grid(flags), **options)
    return [m.name for m in config.models]


def test_the_sweep_block_is_the_grid_and_flags_replace_or_extend_it() -> None:
    block = {"grid": {"temperature": [0, 0.6], "top_p": [0.95, 1.0]}, "limit": 5}
    data = _config(sweep=block)
    assert _names(data, []) == [
        "m[temperature=0,top_p=0.95]",
        "m[temperature=0,top_p=1.0]",
        "m[temperature=0.6,top_p=0.95]",
        "m[temperature=0.6,top_p=1.0]",
    ]
    # A flag's key replaces the block's values where the block has it; a new key comes last.
    assert _names(data, ["top_p=0.8", "seed=7,8"]) == [
        "m[temperature=0,top_p=0.8,seed=7]",
        "m[temperature=0,top_p=0.8,seed=8]",
        "m[temperature=0.6,top_p=0.8,seed=7]",
        "m[temperature=0.6,top_p=0.8,seed=8]",
    ]
    config = expand(parse_config(data, "c.yaml"), parse_grid(["top_p=0.8"]))
    assert config.tasks[0].limit == 5
    assert config.models[1].generation == {"seed": 1, "temperature": 0.6, "top_p": 0.8}
    assert expand(parse_config(data, "c.yaml"), [], limit=2).tasks[0].limit == 2
    nested = _config(sweep={"grid": {"chat_template_kwargs.enable_thinking": [True, False]}})
    thinking = expand(parse_config(nested, "c.yaml"), [])
    assert [m.generation["chat_template_kwargs"] for m in thinking.models] == [
        {"enable_thinking": True},
        {"enable_thinking": False},
    ]
    assert thinking.models[0].name == "m[chat_template_kwargs.enable_thinking=true]"


def test_the_block_names_the_model_to_vary() -> None:
    two = _config(sweep={"grid": {"temperature": [0]}, "model": "b"})
    two["models"].append({"name": "b", "base_url": URL, "model": "served-b"})
    config = expand(parse_config(two, "c.yaml"), [])
    assert [(m.name, m.served_model) for m in config.models] == [("b[temperature=0]", "served-b")]
    assert _names(two, [], model="m") == ["m[temperature=0]"]
    with pytest.raises(ConfigError, match="give at least one --grid"):
        expand(parse_config(_config(), "c.yaml"), [])


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"sweep": {"grid": {"temperature": 0.6}}}, "c.yaml: sweep.grid.temperature: give a list"),
        ({"sweep": {"grid": {"temperature": []}}}, "c.yaml: sweep.grid.temperature: list at"),
        ({"sweep": {"grid": {"top_p": [1, 1]}}}, "c.yaml: sweep.grid.top_p: value 1 is listed"),
        ({"sweep": {"grid": {"max_tokens": [10]}}}, "c.yaml: sweep.grid.max_tokens: max_tokens"),
        ({"sweep": {"grid": {"a b": [1]}}}, "c.yaml: sweep.grid.a b: 'a b' is not a"),
        ({"sweep": {"grid": {"temperature": [0, "hot"]}}},
         "c.yaml: sweep.grid.temperature: expected a number >= 0 or null, got 'hot'"),
        ({"sweep": {"grid": {"chat_template_kwargs": [True]}}},
         "c.yaml: sweep.grid.chat_template_kwargs: expected a mapping"),
        ({"sweep": {"limit": 0, "grid": {"seed": [1]}}}, "c.yaml: sweep.limit: Expected"),
        ({"sweep": {"model": "zz"}}, "c.yaml: sweep.model: no model named 'zz'; models: m"),
        ({"sweep": {"grdi": {}}}, "c.yaml: sweep.grdi: unknown key"),
        ({"sweep": {"grid": {"prompt": ["nope"]}}, "prompts": PROMPTS},
         "c.yaml: sweep.grid.prompt: no prompt named 'nope'; prompts: plain, boxed, terse"),
        ({"sweep": {"grid": {"prompt": [1]}}}, "c.yaml: sweep.grid.prompt: prompt values are"),
        ({"prompts": {"x": {"template": "no placeholder"}}},
         "c.yaml: prompts.x.template: template must hold {prompt}"),
        ({"prompts": {"a/b": {}}}, "c.yaml: prompts.a/b: prompt name 'a/b' must"),
        ({"prompts": {"x": {"sytem": "s"}}}, "c.yaml: prompts.x.sytem: unknown key"),
    ],
)  # fmt: skip
def test_a_bad_sweep_block_or_prompt_is_one_line_naming_file_and_key(
    extra: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config(_config(**extra), "c.yaml")
    message = str(raised.value)
    assert message.startswith(expected) and "\n" not in message, message


def test_a_grid_prompt_names_the_config_s_prompts() -> None:
    data = _config(prompts=PROMPTS)
    config = expand(parse_config(data, "c.yaml"), parse_grid(["prompt=plain,boxed,terse"]))
    assert [m.prompt for m in config.models] == [
        PromptVariant(),
        PromptVariant(template=PROMPTS["boxed"]["template"]),
        PromptVariant(system="Think briefly."),
    ]
    with pytest.raises(ConfigError, match=r"^--grid prompt=zz: no prompt named 'zz'; prompts: "):
        expand(parse_config(data, "c.yaml"), parse_grid(["prompt=zz"]))
    with pytest.raises(ConfigError, match=r"prompts: none \(add a prompts: mapping"):
        expand(parse_config(_config(), "c.yaml"), parse_grid(["prompt=a"]))


def test_a_prompt_variant_rewrites_the_question_and_the_system_message() -> None:
    messages = [
        {"role": "system", "content": "task system"},
        {"role": "user", "content": "example"},
        {"role": "assistant", "content": "shot"},
        {"role": "user", "content": "What is {x}?"},
    ]
    boxed = PromptVariant(template="Q: {prompt} \\boxed{}")
    assert boxed.apply(messages)[1:] == [
        {"role": "user", "content": "example"},  # few-shot examples stay as the task wrote them
        {"role": "assistant", "content": "shot"},
        {"role": "user", "content": "Q: What is {x}? \\boxed{}"},
    ]
    assert boxed.apply(messages)[0] == messages[0]
    assert PromptVariant(system="new").apply(messages)[0] == {"role": "system", "content": "new"}
    assert [m["role"] for m in PromptVariant(system="").apply(messages)] == [
        "user",
        "assistant",
        "user",
    ]
    assert PromptVariant().apply(messages) == messages
    assert messages[3]["content"] == "What is {x}?"  # the task's messages are not changed


def test_sweep_asks_each_prompt_variant_with_its_prompt_and_pairs_by_sample(
    tmp_path: Path, sim: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, list[dict[str, Any]]]] = []
    original = ServerProfile.request

    def recording(self: ServerProfile, model: str, messages: Any, *rest: Any) -> dict[str, Any]:
        body = original(self, model, messages, *rest)
        sent.append((str(body.get("temperature")), body["messages"]))
        return body

    monkeypatch.setattr(ServerProfile, "request", recording)
    server = sim(model="m", seed=3)
    config = write_config(
        tmp_path / "sweep.yaml",
        {
            "run": "study",
            "budgets": [1024, 2048],
            "tasks": [{"name": "gsm8k"}],
            "models": [{"name": "m", "base_url": server.base_url, "concurrency": 4}],
            "prompts": {"plain": {}, "terse": {"system": "Think briefly."}},
            "sweep": {"grid": {"prompt": ["plain", "terse"]}, "limit": 3},
        },
    )
    out = tmp_path / "out"
    argv = ["sweep", str(config), "--grid", "temperature=0", "--output", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    names = ["m[prompt=plain,temperature=0]", "m[prompt=terse,temperature=0]"]
    assert all(name in printed for name in names), printed
    fixed = [messages for _, messages in sent][:6]
    systems = sorted(m[0]["content"] for m in fixed if m[0]["role"] == "system")
    assert len(fixed) == 6 and systems == ["Think briefly."] * 3
    assert {temperature for temperature, _ in sent} == {"0"}
    record = json.loads((out / "config.json").read_text())
    assert [m["prompt"]["system"] for m in record["models"]] == [None, "Think briefly."]
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(r["model"] for r in summary["results"]) == names
    # The same question text reached both: the paired table compares the same 3 samples.
    against = [line for line in printed.splitlines() if line.startswith("│") and names[1] in line]
    assert against[-1].split("│")[2].strip() == "3", printed
    # A changed prompt is refused on resume, as a changed generation is.
    changed = config.read_text().replace("Think briefly.", "Think at length.")
    config.write_text(changed)
    assert main(argv) == 2
    assert "was run with prompt" in capsys.readouterr().err
