"""Runs from flags, lm-eval style, beside config files; run.yaml reproduces and resumes a run."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import write_config
from fakehub import FakeHub
from thinkeval.cli import main
from thinkeval.errors import ConfigError
from thinkeval.run.from_flags import (
    RunFlags,
    choose_model,
    parse_generation,
)
from thinkeval.run.selection import split_list
from thinkeval.settings import parse_budgets
from thinkeval.store.journal import iter_attempts


def completed(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as reply:
        return int(json.load(reply)["completed"])


def summary(run_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    data = json.loads((run_dir / "summary.json").read_text())
    return {(r["model"], r["task"]): r for r in data["results"]}


def config_json(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "config.json").read_text())
    return data


def test_a_run_from_flags_alone_then_resumed_from_its_run_yaml(
    tmp_path: Path,
    sim,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fake_hub: FakeHub,
) -> None:
    """In a directory without datasets: the data comes from the (fake) hub."""
    server = sim(model="Qwen/Qwen3-8B", seed=3)
    monkeypatch.delenv("THINKEVAL_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    status = main(
        [
            "run",
            "--base-url",
            server.base_url,
            "--tasks",
            "gsm8k,boolq",
            "--limit",
            "6",
            "--budgets",
            "1024,4096",
            "--concurrency",
            "8",
            "--gen",
            "temperature=0.6",
            "--gen",
            "chat_template_kwargs.enable_thinking=true",
        ]
    )
    assert status == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("Qwen-Qwen3-8B-gsm8k-boolq-")
    assert set(summary(run_dir)) == {("Qwen-Qwen3-8B", "gsm8k"), ("Qwen-Qwen3-8B", "boolq")}
    assert all(row["total"] == 6 for row in summary(run_dir).values())
    record = config_json(run_dir)
    (model,) = record["models"]
    assert (model["name"], model["model"], model["concurrency"]) == (
        "Qwen-Qwen3-8B",
        "Qwen/Qwen3-8B",
        8,
    )
    assert model["generation"] == {
        "temperature": 0.6,
        "chat_template_kwargs": {"enable_thinking": True},
    }
    assert {t["name"]: t["budgets"] for t in record["tasks"]} == {
        "gsm8k": [1024, 4096],
        "boolq": [1024, 4096],
    }
    attempt = next(iter_attempts(run_dir))
    assert attempt.request["model"] == "Qwen/Qwen3-8B"
    assert attempt.request["chat_template_kwargs"] == {"enable_thinking": True}
    err = capsys.readouterr().err
    assert "gsm8k: 6 samples (limit 6) from hub openai/gsm8k@740312add88f" in err
    assert {t["name"]: t["source"] for t in record["tasks"]} == {
        "gsm8k": "hub openai/gsm8k@740312add88f781978c0658806c59bc2815b9866 "
        "(main/test-00000-of-00001.parquet)",
        "boolq": "hub aps/super_glue@3de24cf8022e94f4ee4b9d55a6f539891524d646 "
        "(boolq/validation-00000-of-00001.parquet)",
    }

    # The same command resumes (nothing asked again); so does run.yaml, from anywhere.
    asked = completed(server.base_url)
    again = [
        "run",
        "--base-url",
        server.base_url,
        "--tasks",
        "gsm8k,boolq",
        "--limit",
        "6",
        "--budgets",
        "1024,4096",
        "--gen",
        "temperature=0.6",
        "--gen",
        "chat_template_kwargs.enable_thinking=true",
    ]
    assert main(again) == 0
    assert [p.name for p in (tmp_path / "runs").iterdir()] == [run_dir.name]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["run", str(run_dir / "run.yaml")]) == 0
    assert not (elsewhere / "runs").exists()
    assert completed(server.base_url) == asked
    # run.yaml is a config: with --output it runs the same evaluation again.
    assert main(["run", str(run_dir / "run.yaml"), "--output", str(tmp_path / "copy")]) == 0
    assert summary(tmp_path / "copy") == summary(run_dir)


def test_different_flags_make_a_different_run(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    server = sim(model="m")
    monkeypatch.setenv("THINKEVAL_DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    for limit in ("2", "3"):
        assert (
            main(["run", "--base-url", server.base_url, "--tasks", "ceval", "--limit", limit]) == 0
        )
    assert len(list((tmp_path / "runs").iterdir())) == 2


def test_openai_variables_are_honoured_and_the_key_is_never_written(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m")
    key = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    run_dir = tmp_path / "out"
    assert main(["run", "--tasks", "gsm8k", "--limit", "3", "--output", str(run_dir)]) == 0
    (model,) = config_json(run_dir)["models"]
    assert (model["base_url"], model["api_key_env"]) == (server.base_url, "OPENAI_API_KEY")
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path
    # --base-url wins over OPENAI_BASE_URL.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert (
        main(
            [
                "run",
                "--base-url",
                server.base_url,
                "--tasks",
                "gsm8k",
                "--limit",
                "3",
                "--output",
                str(run_dir),
            ]
        )
        == 0
    )


def test_repeated_task_flags_keep_every_task(tmp_path: Path, sim) -> None:
    """`--task gsm8k --task boolq` used to keep only boolq."""
    server = sim(model="m")
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "sel",
            "tasks": [{"name": t, "limit": 3} for t in ("ceval", "boolq", "gsm8k")],
            "models": [{"name": "m", "base_url": server.base_url}],
        },
    )
    run_dir = tmp_path / "out"
    assert (
        main(["run", str(config), "--output", str(run_dir), "--task", "gsm8k", "--task", "boolq"])
        == 0
    )
    assert {task for _, task in summary(run_dir)} == {"gsm8k", "boolq"}
    assert main(["run", str(config), "--output", str(run_dir), "--tasks", "ceval,gsm8k"]) == 0
    assert {task for _, task in summary(run_dir)} == {"ceval", "boolq", "gsm8k"}


def test_config_and_flags_that_describe_a_run_do_not_mix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "r", "models": [{"name": "m", "base_url": "http://127.0.0.1:9/v1"}]},
    )
    assert main(["run", str(config), "--limit", "5", "--gen", "temperature=0"]) == 2
    err = capsys.readouterr().err
    assert "--limit, --gen describe a run from flags" in err and str(config) in err


def test_no_config_and_no_server_says_what_to_give(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert main(["run", "--tasks", "gsm8k"]) == 2
    assert (
        "give a config file (thinkeval run CONFIG) or a server: --base-url URL or "
        "OPENAI_BASE_URL" in capsys.readouterr().err
    )


# --- parsing ------------------------------------------------------------------------------------


def test_gen_values_are_yaml_scalars_and_dotted_keys_nest() -> None:
    assert parse_generation(
        [
            "temperature=0.6",
            "top_k=20",
            "seed=null",
            "x.y.z=on",
            "stop_words=[a, b]",
            "label=plain text",
            "x.w=2.5",
        ]
    ) == {
        "temperature": 0.6,
        "top_k": 20,
        "seed": None,
        "x": {"y": {"z": True}, "w": 2.5},
        "stop_words": ["a", "b"],
        "label": "plain text",
    }


@pytest.mark.parametrize(
    ("items", "words"),
    [
        (["temperature"], "expected KEY=VALUE"),
        (["=1"], "expected KEY=VALUE"),
        (["a..b=1"], "expected KEY=VALUE"),
        (["a=1", "a.b=2"], "a was already set to a value"),
        (["a=1", "a=2"], "a is set twice"),
        (["a=[1, 2"], "not valid YAML"),
    ],
)
def test_bad_gen_flags_are_named(items: list[str], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        parse_generation(items)


def test_lists_and_budgets() -> None:
    assert split_list(["gsm8k", "boolq,ceval"]) == ("gsm8k", "boolq", "ceval")
    with pytest.raises(ConfigError, match="gsm8k given twice"):
        split_list(["gsm8k,boolq", "gsm8k"])
    assert parse_budgets("1024,4096") == (1024, 4096)
    with pytest.raises(ConfigError, match="two token counts"):
        parse_budgets("2048")


BAD_BUDGETS = [
    "2048",
    "1,2,3",
    "a,b",
    " ,8192",
    "-1,2",
    "+1,2",
    "1.5,4",
    "²,4",
    "0,10",
    "8192,2048",
    "2048,2048",
]


@pytest.mark.parametrize("text", BAD_BUDGETS)
def test_every_command_refuses_bad_budgets_with_one_message(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_budgets(text)
    message = str(refused.value)
    assert "\n" not in message and message.startswith("--budgets ") and repr(text) in message
    # `run` parses the flag itself; `check` and `import-aisbench` through argparse.
    flag = f"--budgets={text}"
    assert main(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", flag]) == 2
    assert capsys.readouterr().err.strip() == f"error: {message}"
    for argv in (
        ["check", "--base-url", "http://127.0.0.1:9/v1", flag],
        ["import-aisbench", "no-such-folder", flag],
    ):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        # argparse's own wording around it, on the same one line.
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("error: ") and f"argument --budgets: {message}" in line


def test_the_model_defaults_to_the_only_one_served() -> None:
    assert choose_model(RunFlags(), ["only"], "http://h/v1") == "only"
    assert choose_model(RunFlags(model="x"), ["a", "b"], "http://h/v1") == "x"
    with pytest.raises(ConfigError, match=r"serves 2 models \(a, b\); choose one with --model"):
        choose_model(RunFlags(), ["a", "b"], "http://h/v1")
    with pytest.raises(ConfigError, match="lists no model"):
        choose_model(RunFlags(), [], "http://h/v1")


def test_run_yaml_spells_out_what_the_run_asks(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m")
    config = write_config(
        tmp_path / "in.yaml",
        {
            "run": "spelled",
            "tasks": [
                {"name": "gsm8k", "range": "3:6"},
                {"name": "ceval", "limit": 2, "budgets": [512, 1024]},
            ],
            "models": [
                {
                    "name": "m",
                    "base_url": server.base_url,
                    "api_key_env": "SOME_KEY",
                    "generation": {"temperature": 0},
                    "unreachable_after_s": None,
                }
            ],
        },
    )
    run_dir = tmp_path / "out"
    monkeypatch.setenv("SOME_KEY", "k")
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    text = (run_dir / "run.yaml").read_text()
    assert text.startswith("# The resolved config of this run")
    data = yaml.safe_load(text)
    assert data["tasks"] == [
        {"name": "gsm8k", "range": "3:6", "budgets": [2048, 8192]},
        {"name": "ceval", "limit": 2, "budgets": [512, 1024]},
    ]
    assert "budgets" not in data
    assert data["models"][0]["api_key_env"] == "SOME_KEY"
    assert data["models"][0]["generation"] == {"temperature": 0}
    # A null that is not the default is kept (dead-server detection off); defaults are left out.
    assert data["models"][0]["unreachable_after_s"] is None
    assert "concurrency" not in data["models"][0] and "timeout_s" not in data["models"][0]
