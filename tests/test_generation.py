"""Generation settings (`thinkeval.generation`): typed and checked when a config is read, merged
in layers, and sent byte for byte as written, server-specific extras included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
from aiohttp import web

from conftest import write_config
from stub_servers import ThreadedApp
from thinkeval.cli import main
from thinkeval.config import parse_config
from thinkeval.errors import ConfigError
from thinkeval.generation import GenerationSettings, typos
from thinkeval.sim.app import build_app
from thinkeval.sim.config import SimConfig

MODEL = {"name": "m", "base_url": "http://h/v1"}
BODIES = web.AppKey("bodies", list)


def test_fields_are_typed_extras_kept_and_the_written_order_is_the_body_s() -> None:
    written = {"top_p": 0.9, "min_tokens": 8, "temperature": 0, "seed": 3, "min_p": None}
    settings = GenerationSettings.read(written)
    assert (settings.temperature, settings.top_p, settings.seed) == (0, 0.9, 3)
    assert settings.min_p is None and settings.top_k is msgspec.UNSET  # null is sent, unset not
    assert settings.extra == {"min_tokens": 8}
    assert list(settings.as_dict()) == list(written) and settings.as_dict() == written
    assert orjson.dumps(settings.as_dict()) == orjson.dumps(written)  # an int stays an int
    assert settings.seeded(2).as_dict() == {**written, "seed": 5}
    assert GenerationSettings(temperature=0.6).seeded(4) == GenerationSettings(temperature=0.6)
    # Equal when the same body is sent: the same keys, order and values.
    assert settings == GenerationSettings.read(dict(written))
    assert settings != GenerationSettings.read(dict(reversed(written.items())))


def test_layers_merge_key_by_key_as_a_dict_would() -> None:
    below = {"temperature": 0.6, "top_p": 0.95, "chat_template_kwargs": {"enable_thinking": True}}
    above = {"chat_template_kwargs": {"x": 1}, "custom": [1], "temperature": 0}
    merged = GenerationSettings.read(below).overridden_by(GenerationSettings.read(above))
    expected = {**below, **above}
    assert merged.as_dict() == expected and list(merged.as_dict()) == list(expected)
    assert GenerationSettings.read(below).overridden_by(GenerationSettings()).as_dict() == below


@pytest.mark.parametrize(
    ("generation", "where", "takes"),
    [
        ({"temperature": "hot"}, "temperature", "expected a number >= 0 or null, got 'hot'"),
        ({"temperature": -0.1}, "temperature", "a number >= 0"),
        ({"temperature": True}, "temperature", "got True"),
        ({"top_p": 0}, "top_p", "a number > 0 and <= 1"),
        ({"top_p": 1.5}, "top_p", "a number > 0 and <= 1"),
        ({"top_k": -2}, "top_k", "an integer >= -1"),
        ({"top_k": 2.5}, "top_k", "an integer"),
        ({"min_p": 2}, "min_p", "a number from 0 to 1"),
        ({"seed": 1.5}, "seed", "an integer (64-bit)"),
        ({"seed": "x"}, "seed", "got 'x'"),
        ({"seed": 2**64}, "seed", "an integer (64-bit)"),
        ({"presence_penalty": 3}, "presence_penalty", "a number from -2 to 2"),
        ({"frequency_penalty": -2.5}, "frequency_penalty", "a number from -2 to 2"),
        ({"repetition_penalty": 0}, "repetition_penalty", "a number > 0"),
        ({"chat_template_kwargs": [1]}, "chat_template_kwargs", "a mapping"),
    ],
)
def test_a_bad_value_is_refused_naming_its_field(
    generation: dict[str, Any], where: str, takes: str
) -> None:
    for section, path in ((dict(MODEL, generation=generation), "models[0]"),):
        with pytest.raises(ConfigError) as refused:
            parse_config({"run": "r", "models": [section]}, "c.yaml")
        assert str(refused.value).startswith(f"c.yaml: {path}.generation.{where}: expected ")
        assert takes in str(refused.value)
    task = {"name": "gsm8k", "generation": generation}
    with pytest.raises(ConfigError, match=rf"c\.yaml: tasks\[0\]\.generation\.{where}: "):
        parse_config({"run": "r", "tasks": [task], "models": [MODEL]}, "c.yaml")


def test_every_bad_field_is_listed_and_reserved_keys_and_stop_still_refused() -> None:
    generation = {"temperature": "hot", "top_p": 7, "max_tokens": 5, "stop": ["</think>"]}
    with pytest.raises(ConfigError) as refused:
        parse_config({"run": "r", "models": [dict(MODEL, generation=generation)]}, "c.yaml")
    lines = str(refused.value).splitlines()
    assert lines == [
        "c.yaml: models[0].generation: max_tokens cannot be set in generation: thinkeval sets "
        "them (max_tokens comes from budgets)",
        "c.yaml: models[0].generation: stop sequences are not sent: they cut thinking models "
        "off inside their reasoning; remove 'stop'",
        "c.yaml: models[0].generation.temperature: expected a number >= 0 or null, got 'hot'",
        "c.yaml: models[0].generation.top_p: expected a number > 0 and <= 1 or null, got 7",
    ]


def test_a_recorded_value_the_checks_now_refuse_is_kept_as_recorded() -> None:
    recorded = GenerationSettings.recorded({"temperature": "0.6", "seed": 1})
    assert recorded.extra == {"temperature": "0.6"} and recorded.seed == 1
    assert recorded.as_dict() == {"temperature": "0.6", "seed": 1}
    # Over typed settings, or under them, the layer above still decides what is sent.
    typed = GenerationSettings.read({"temperature": 0.6, "top_p": 0.9})
    assert typed.overridden_by(recorded).as_dict() == {
        "temperature": "0.6",
        "top_p": 0.9,
        "seed": 1,
    }
    assert recorded.overridden_by(typed).as_dict() == {"temperature": 0.6, "seed": 1, "top_p": 0.9}
    assert recorded.overridden_by(typed).extra == {}


def test_settings_built_in_code_send_their_fields_in_field_order_then_extras() -> None:
    built = GenerationSettings(top_p=0.9, extra={"min_tokens": 2}, temperature=0)
    assert built.order == ("temperature", "top_p", "min_tokens")
    assert built.as_dict() == {"temperature": 0, "top_p": 0.9, "min_tokens": 2}
    assert not GenerationSettings() and built


def test_likely_typos_of_known_fields_are_named_and_still_sent() -> None:
    settings = GenerationSettings.read({"temprature": 0.6, "top_a": 0.1, "min_tokens": 4})
    assert list(typos(settings)) == [("temprature", "temperature")]
    assert settings.as_dict() == {"temprature": 0.6, "top_a": 0.1, "min_tokens": 4}


def _recording_sim(answer_key: dict[str, Any]) -> web.Application:
    """The simulator's own application, keeping the raw bytes of every chat request body."""
    app = build_app(SimConfig(port=0, model="m", seed=1, p_long=0.5), answer_key)
    app[BODIES] = []

    @web.middleware
    async def record(request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path == "/v1/chat/completions":
            request.app[BODIES].append(await request.read())
        return await handler(request)

    app.middlewares.append(record)
    return app


def test_the_body_on_the_wire_is_the_settings_as_written(
    tmp_path: Path, answer_key: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    # The layers as thinkeval merged them as dicts before the typed settings: the task's
    # recommended sampling, the model's generation, the task entry's, the repeat's seed, the
    # reasoning controls; then the fields thinkeval owns.
    recommended = {"temperature": 0.6, "top_p": 0.95}  # aime24's
    model_generation = {
        "top_p": 0.9,
        "vendor_sampler": {"mode": "x", "weights": [1, 0.5]},
        "temperature": 0,
        "seed": 7,
        "chat_template_kwargs": {"enable_thinking": True},
        "presence_penalty": None,
        "min_tokens": 1,
        "temprature": 0.5,  # a typo: sent as written, and warned about
    }
    task_generation = {"top_k": 20, "repetition_penalty": 1}
    with ThreadedApp(_recording_sim(answer_key)) as server:
        model = {
            "name": "m",
            "base_url": server.base_url,
            "concurrency": 2,
            "generation": model_generation,
            "reasoning": {"effort": "high"},
        }
        task = {"name": "aime24", "limit": 2, "repeats": 2, "generation": task_generation}
        config = write_config(
            tmp_path / "c.yaml",
            {"run": "wire", "budgets": [256, 512], "tasks": [task], "models": [model]},
        )
        assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
        bodies = server.app[BODIES]
    err = capsys.readouterr().err
    assert "warning: models[0].generation.temprature is sent as written" in err
    assert "did you mean temperature?" in err and "error" not in err
    seeds = set()
    for raw in bodies:
        sent = json.loads(raw)
        repeat = sent["seed"] - 7
        seeds.add(sent["seed"])
        before = {**recommended, **model_generation, **task_generation}
        before["seed"] += repeat
        before.update({"reasoning_effort": "high"})
        expected = {
            **before,
            "model": "m",
            "messages": sent["messages"],
            "max_tokens": sent["max_tokens"],
        }
        assert raw == orjson.dumps(expected)
    assert seeds == {7, 8} and len(bodies) >= 4  # both repeats, and the retries at B2
    assert {json.loads(raw)["max_tokens"] for raw in bodies} == {256, 512}
    # config.json records each layer as written (its keys sorted, as ever).
    record = json.loads((tmp_path / "out" / "config.json").read_text())
    assert record["models"][0]["generation"] == model_generation
    assert record["tasks"][0]["generation"] == task_generation
    assert record["tasks"][0]["recommended"] == recommended
