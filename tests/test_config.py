"""Config validation: every mistake names the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from thinkeval.client.limits import EndpointLimits
from thinkeval.config import load_config, parse_config
from thinkeval.errors import ConfigError
from thinkeval.ops.sweep import expand, parse_grid
from thinkeval.urls import redact_url

EXAMPLES = Path(__file__).parent.parent / "examples"
EXAMPLE = EXAMPLES / "compare.yaml"


def minimal(**overrides: object) -> dict:
    data: dict = {
        "run": "r1",
        "models": [{"name": "m", "base_url": "http://127.0.0.1:8000/v1"}],
    }
    data.update(overrides)
    return data


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_example_config_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.budgets == (2048, 8192)
    assert [t.name for t in config.tasks] == ["ceval", "boolq", "gsm8k"]
    assert config.models[0].served_model == "qwen3-8b-w8a8"
    assert config.models[1].served_model == "qwen3-8b-bf16"  # defaults to the name
    assert config.models[2].base_urls == ["http://127.0.0.1:8008/v1", "http://127.0.0.1:8009/v1"]


def test_every_example_config_loads() -> None:
    """Every example that is a thinkeval config (not a cluster manifest) loads as written."""
    configs = sorted(
        path.name
        for path in EXAMPLES.glob("*.yaml")
        if "run" in (yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    )
    assert configs == ["compare.yaml", "prompts.yaml", "sweep.yaml"]
    for name in configs:
        assert load_config(EXAMPLES / name).models


def test_the_sweep_example_expands_to_its_grid() -> None:
    config = load_config(EXAMPLES / "sweep.yaml")
    swept = expand(config, [])
    assert [m.name for m in swept.models] == [
        f"qwen3-8b[temperature={t},presence_penalty={p}]"
        for t in ("0.0", "0.6")
        for p in ("0.0", "1.5")
    ]
    pairs = {(m.generation["temperature"], m.generation["presence_penalty"]) for m in swept.models}
    assert pairs == {(0.0, 0.0), (0.0, 1.5), (0.6, 0.0), (0.6, 1.5)}
    assert all(m.generation["top_k"] == 20 for m in swept.models)  # the model's own, kept
    assert [(t.name, t.limit) for t in swept.tasks] == [("gsm8k", 50), ("aime25", 50)]
    assert swept.run == "qwen3-loops-sweep"
    # A flag replaces the block's values of its key, in place.
    flagged = expand(config, parse_grid(["temperature=1.0"]))
    assert [m.name for m in flagged.models] == [
        "qwen3-8b[temperature=1.0,presence_penalty=0.0]",
        "qwen3-8b[temperature=1.0,presence_penalty=1.5]",
    ]


def test_the_prompts_example_asks_each_variant() -> None:
    config = load_config(EXAMPLES / "prompts.yaml")
    question = [{"role": "user", "content": "What is 2+2?"}]
    asked = {name: variant.apply(question) for name, variant in config.prompts.items()}
    assert asked["plain"] == question
    assert asked["boxed"] == [{"role": "user", "content": "What is 2+2?\nPlease reason step by "
                               "step, and put your final answer within \\boxed{}."}]  # fmt: skip
    assert asked["terse"] == [{"role": "system", "content": "Think briefly, then answer."},
                              *question]  # fmt: skip
    terse = config.model_named("qwen3-8b-terse")
    assert terse.served_model == "qwen3-8b" and terse.prompt == config.prompts["terse"]
    swept = expand(config, [])
    assert [m.name for m in swept.models] == [
        f"qwen3-8b[prompt={name}]" for name in ("plain", "boxed", "terse")
    ]
    assert [m.prompt for m in swept.models] == list(config.prompts.values())


def test_defaults() -> None:
    config = parse_config(minimal())
    model = config.models[0]
    assert config.budgets is None  # each task's own: the seed's benchmarks use 2048 -> 8192
    assert [t.name for t in config.tasks] == ["boolq", "ceval", "gsm8k"]
    assert {task.budgets for task in config.resolved.values()} == {(2048, 8192)}
    assert (model.concurrency, model.max_retries, model.timeout_s) == (64, 10, None)
    assert model.stream is False


def test_task_entries_select_samples() -> None:
    config = parse_config(
        minimal(tasks=["ceval", {"name": "gsm8k", "limit": 3}, {"name": "boolq", "range": "2:5"}])
    )
    items = list(range(10))
    assert list(config.task("ceval").select(items)) == items
    assert list(config.task("gsm8k").select(items)) == [0, 1, 2]
    assert list(config.task("boolq").select(items)) == [2, 3, 4]
    # Selection streams: it stops reading a generator as soon as it has enough.
    read: list[int] = []
    stream = (read.append(i) or i for i in range(10))
    assert list(config.task("boolq").select(stream)) == [2, 3, 4]
    assert read == [0, 1, 2, 3, 4]


def test_a_range_is_numbers_once_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    from thinkeval.config import tasks

    config = parse_config(minimal(tasks=[{"name": "boolq", "range": " 2 : 5 "}, "ceval"]))
    selection = config.tasks[0]
    assert selection.bounds == (2, 5) and config.tasks[1].bounds is None
    assert selection.range == " 2 : 5 "  # the entry as written
    # Selecting reads the numbers: the string is not parsed again.
    monkeypatch.setattr(tasks, "parse_range", lambda text: pytest.fail(f"parsed {text!r} again"))
    task = config.task("boolq")
    assert task.bounds == (2, 5) and config.task("ceval").bounds is None
    assert list(task.select(range(10))) == [2, 3, 4]
    assert (task.range, task.selection) == ("2:5", "range 2:5")  # as config.json records it


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("run: r\nmodels: []\nbogus: 1\n", "bogus: unknown key"),
        (
            "run: r\nmodels:\n  - {name: m, base_url: 'http://h/v1', concurency: 3}\n",
            "models[0].concurency: unknown key",
        ),
        (
            "run: r\nmodels:\n  - {name: m, base_url: 'http://h/v1', concurrency: many}\n",
            "models[0].concurrency: Expected `int`, got `str`",
        ),
        (
            "run: r\nmodels:\n  - {name: m, base_url: 'http://h/v1', concurrency: 0}\n",
            "models[0].concurrency: Expected `int` >= 1",
        ),
        (
            "run: r\nmodels:\n  - {base_url: 'http://h/v1'}\n",
            "models[0].name: required key is missing",
        ),
        ("models:\n  - {name: m, base_url: 'http://h/v1'}\n", "run: required key is missing"),
        (
            "run: r\nbudgets: [8192, 2048]\nmodels:\n  - {name: m, base_url: 'http://h/v1'}\n",
            "budgets: budgets must increase",
        ),
        ("run: r\nbudgets: [2048]\nmodels:\n  - {name: m, base_url: 'http://h/v1'}\n", "budgets"),
        (
            "run: r\nmodels:\n  - {name: m, base_url: 'localhost:8000'}\n",
            "has no scheme: did you mean 'http://localhost:8000'?",
        ),
        (
            "run: r\ntasks: [mmlu]\nmodels:\n  - {name: m, base_url: 'http://h/v1'}\n",
            "tasks[0].name: unknown task 'mmlu'",
        ),
        (
            "run: r\ntasks: [{name: gsm8k, range: '5:2'}]\nmodels:\n  - {name: m, base_url: 'http://h/v1'}\n",
            "is empty",
        ),
        (
            "run: r\ntasks: [{name: gsm8k, limit: 2, range: '1:3'}]\nmodels:\n"
            "  - {name: m, base_url: 'http://h/v1'}\n",
            "either limit or range",
        ),
        ("run: ../escape\nmodels:\n  - {name: m, base_url: 'http://h/v1'}\n", "run: run name"),
        (
            "run: r\nmodels:\n"
            "  - {name: m, base_url: 'http://h/v1', generation: {max_tokens: 5}}\n",
            "max_tokens cannot be set in generation",
        ),
        (
            "run: r\nmodels:\n  - {name: m, base_url: 'http://h/v1', generation: {stop: ['Q:']}}\n",
            "stop sequences are not sent",
        ),
        (
            "run: r\nmodels:\n  - {name: m, base_url: 'http://h/v1'}\n  - {name: m, base_url: 'http://h/v1'}\n",
            "model 'm' is listed twice",
        ),
        ("run: r\nmodels: [\n", "not valid YAML"),
        ("- just\n- a list\n", "must be a YAML mapping"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    assert expected in message


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config("/nonexistent/run.yaml")


def test_api_key_read_from_environment_only(monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config(
        minimal(models=[{"name": "m", "base_url": "http://h/v1", "api_key_env": "TE_KEY"}])
    )
    monkeypatch.delenv("TE_KEY", raising=False)
    with pytest.raises(ConfigError, match="TE_KEY"):
        config.models[0].api_key()
    monkeypatch.setenv("TE_KEY", "sk-secret-123\n")
    assert config.models[0].api_key() == "sk-secret-123"
    assert "sk-secret-123" not in str(config.public_dict())


@pytest.mark.parametrize("key", ["sk-1\r\nX-Injected: 1", "sk 1", "sk-\u00e9"])
def test_an_api_key_that_cannot_be_a_header_is_refused(
    monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    config = parse_config(
        minimal(models=[{"name": "m", "base_url": "http://h/v1", "api_key_env": "TE_KEY"}])
    )
    monkeypatch.setenv("TE_KEY", key)
    with pytest.raises(ConfigError, match=r"TE_KEY.*line breaks") as caught:
        config.models[0].api_key()
    assert key not in str(caught.value)


def test_url_credentials_and_api_key_exclude_each_other() -> None:
    with pytest.raises(ConfigError, match="only one Authorization header"):
        parse_config(
            minimal(models=[{"name": "m", "base_url": "http://u:p@h/v1", "api_key_env": "K"}])
        )


def test_credentials_in_urls_are_redacted() -> None:
    url = "http://user:hunter2@10.0.0.5:8000/v1"
    assert redact_url(url) == "http://***@10.0.0.5:8000/v1"
    config = parse_config(minimal(models=[{"name": "m", "base_url": url}]))
    assert "hunter2" not in str(config.public_dict())
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"


def test_key_like_query_parameters_are_redacted_everywhere_a_url_is_shown() -> None:
    url = "https://gw.example/v1?api_key=s3cret&deployment=a"
    assert redact_url(url) == "https://gw.example/v1?api_key=%2A%2A%2A&deployment=a"
    config = parse_config(minimal(models=[{"name": "m", "base_url": url}]))
    assert "s3cret" not in str(config.public_dict())
    # The redacted URL still names the same server (shared in-flight caps are keyed by it).
    assert EndpointLimits({url: 4}).semaphore(redact_url(url)) is not None


def test_every_problem_the_types_allow_is_listed_at_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        (
            "run: ../up\nbudgets: [4096, 2048]\ntasks: [mmlu, gsm8k, gsm8k]\n"
            "models:\n  - {name: m, base_url: 'localhost:8000', generation: {stop: ['Q:']}}\n"
        ),
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    lines = str(info.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "run",
        "budgets",
        "tasks",
        "tasks[0].name",
        "models[0].base_url",
        "models[0].generation",
    ]
    assert all(line.startswith(f"{path}: ") for line in lines)


def test_a_task_s_generation_must_suit_every_model_s_api() -> None:
    data = minimal()
    data["models"] = [
        {"name": "local", "base_url": "http://h/v1"},
        {"name": "hosted", "base_url": "https://api.example.com/v1", "api": "openai"},
    ]
    data["tasks"] = [{"name": "gsm8k", "generation": {"chat_template_kwargs": {"x": 1}}}]
    with pytest.raises(ConfigError, match=r"tasks\[0\]\.generation: for model 'hosted':"):
        parse_config(data, "run.yaml")
