"""What a new user meets in the first hour, each once silently wrong or a dead end (issue 23):
the Python API's `limit=0`, `--tasks ""`, the gain taken from rounded cells, a clamped retry
budget nobody is told about, `score()` accepting any finish_reason, and the messages around them.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

import thinkeval
from conftest import ThreadedSim
from thinkeval.cli import main
from thinkeval.errors import ConfigError, ThinkevalError
from thinkeval.records import Attempt
from thinkeval.results.judge import judge_agreement
from thinkeval.results.wording import gain
from thinkeval.sim.config import SimConfig
from thinkeval.ui.progress import RunProgress


@pytest.mark.parametrize(
    ("fixed", "adaptive", "total", "shown"),
    [(22, 26, 30, "+13.33 pp"), (166, 199, 233, "+14.16 pp"), (730, 1105, 1319, "+28.43 pp"),
     (26, 22, 30, "-13.33 pp")],
)  # fmt: skip
def test_the_gain_is_taken_from_the_counts_then_rounded(
    fixed: int, adaptive: int, total: int, shown: str
) -> None:
    assert gain(fixed, adaptive, total) == shown


def test_evaluate_refuses_limit_0_instead_of_running_everything(
    sim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m", seed=1)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^limit= must be at least 1, got 0$"):
        thinkeval.evaluate(base_url=server.base_url, tasks="gsm8k", limit=0)
    assert list(tmp_path.iterdir()) == []  # no run started


def test_python_api_errors_do_not_say_command_line(sim) -> None:
    server = sim(model="m", seed=1)
    with pytest.raises(ThinkevalError) as raised:
        thinkeval.evaluate(base_url=server.base_url, tasks="gsm8k", budgets=(0, 5))
    assert str(raised.value).startswith("thinkeval.evaluate()")


@pytest.mark.parametrize("tasks", ["", " , ", []])
def test_evaluate_with_an_empty_task_list_is_an_error(tasks: str | list[str]) -> None:
    with pytest.raises(ConfigError, match=r"tasks= names nothing"):
        thinkeval.evaluate(base_url="http://127.0.0.1:9/v1", tasks=tasks)


def test_run_with_tasks_empty_string_is_one_line_not_the_default_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--base-url", "http://127.0.0.1:9/v1", "--tasks", "",
                 "--output", str(tmp_path / "out")])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "--tasks names nothing" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_negative_budgets_name_the_flag_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--base-url", "http://127.0.0.1:9/v1", "--budgets", "-1,100"]) == 2
    err = capsys.readouterr().err
    assert "--budgets must be two token counts" in err and "'-1,100'" in err
    assert "expected one argument" not in err and "usage:" not in err


def test_a_bad_flag_value_is_one_line_without_a_usage_block(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "--limit", "x"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err
    assert "--limit" in err and "'x'" in err


@pytest.mark.parametrize("finish_reason", ["banana", "", "STOP"])
def test_score_refuses_a_finish_reason_no_server_sends(finish_reason: str) -> None:
    with pytest.raises(thinkeval.ArgumentError, match="finish_reason"):
        thinkeval.score("gsm8k", "The answer is 15", finish_reason, "15")


def test_score_names_an_unknown_task_or_scorer_with_the_projects_error() -> None:
    with pytest.raises(ThinkevalError, match="unknown task 'nosuch'"):
        thinkeval.score("nosuch", "15", "stop", "15")
    with pytest.raises(ThinkevalError, match="unknown scorer 'fuzzy'"):
        thinkeval.score("gsm8k", "15", "stop", "15", scorer="fuzzy")
    assert thinkeval.score("gsm8k", "The answer is 15", None, "15").status == "correct"


def test_judge_agreement_takes_a_str_path(sim, tmp_path: Path) -> None:
    server = sim(model="m", seed=2)
    out = tmp_path / "run"
    assert main(["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "4",
                 "--output", str(out)]) == 0  # fmt: skip
    assert judge_agreement(str(out)) == judge_agreement(out)


def test_a_clamped_retry_budget_is_shown_in_the_table_and_every_report(
    sim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m", seed=13, max_model_len=6000, p_long=0.5)
    out = tmp_path / "run"
    assert main(["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "30",
                 "--budgets", "2048,99999999", "--output", str(out)]) == 0  # fmt: skip
    table = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    retry = summary["results"][0]["retry"]
    assert retry["clamped"] == retry["candidates"] > 0
    assert 0 < retry["clamped_to"] < 6000
    assert f"99999999 (≤{retry['clamped_to']})" in table
    assert "did not fit the server's max_model_len" in table
    assert summary["results"][0]["fixed"]["clamped"] == 0
    for fmt in ("md", "html", "json"):
        target = tmp_path / f"report.{fmt}"
        assert main(["report", str(out), "--format", fmt, "--out", str(target),
                     "--resamples", "200"]) == 0  # fmt: skip
        text = target.read_text()
        assert "retry budget 99999999 did not fit the server" in text, fmt
        assert f"at most {retry['clamped_to']}" in text, fmt


def test_a_failed_start_leaves_no_run_directory_and_no_advice_to_resume(
    sim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m", seed=3)
    out = tmp_path / "run"
    code = main(["run", "--base-url", server.base_url, "--model", "nope", "--tasks", "gsm8k",
                 "--limit", "3", "--output", str(out)])  # fmt: skip
    assert code == 2
    captured = capsys.readouterr()
    assert "serves m, not 'nope'" in captured.err
    assert "run the same command again" not in captured.out + captured.err
    assert not out.exists()


def test_a_config_fixed_after_a_failed_start_runs_instead_of_refusing(
    sim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m", seed=3)
    out = tmp_path / "run"
    config = tmp_path / "run.yaml"
    entry = f"  - name: my-model\n    base_url: {server.base_url}\n"
    body = "run: first\ntasks:\n  - {name: gsm8k, limit: 3}\nmodels:\n"
    config.write_text(body + entry)
    assert main(["run", str(config), "--output", str(out)]) == 2  # the id is 'm', not 'my-model'
    out.mkdir()  # even where the directory stays (it was there before), nothing binds the run
    (out / "keep").write_text("")
    assert main(["run", str(config), "--output", str(out)]) == 2
    assert (out / "keep").exists()
    config.write_text(body + entry + "    model: m\n")
    capsys.readouterr()
    assert main(["run", str(config), "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert "None" not in err and "use a new run name" not in err


def test_evaluate_names_its_keyword_for_a_bad_base_url() -> None:
    with pytest.raises(ConfigError, match=r"^base_url=: base_url 'localhost:8000/v1' has no"):
        thinkeval.evaluate(base_url="localhost:8000/v1", tasks="gsm8k")


def test_the_simulator_answers_a_choice_task_file_with_letters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `thinkeval sim` knows only the built-in tasks' answers: a task file's prompt is read for
    # its kind, and a choice prompt gets a letter (it got a number: all no_answer).
    (tmp_path / "quiz.csv").write_text(
        "id,question,A,B,C,D,answer\n"
        + "".join(f"{i},Question {i}?,w,x,y,z,{'ABCD'[i % 4]}\n" for i in range(8))
    )
    (tmp_path / "quiz.yaml").write_text(
        "name: quiz\ndata:\n  file: quiz.csv\nfields:\n  question: question\n  answer: answer\n"
        "  choices: [A, B, C, D]\n  id: id\nanswer:\n  kind: choice\n"
    )
    server = ThreadedSim(SimConfig(port=0, model="m", seed=5), {}).start()
    try:
        config = tmp_path / "run.yaml"
        config.write_text(
            "run: quiz\ntasks:\n  - {file: quiz.yaml}\n"
            f"models:\n  - {{name: m, base_url: '{server.base_url}'}}\n"
        )
        assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    finally:
        server.stop()
    fixed = json.loads((tmp_path / "out" / "summary.json").read_text())["results"][0]["fixed"]
    assert fixed["no_answer"] == 0 and fixed["correct"] + fixed["wrong"] > 0


@pytest.mark.parametrize("seeded", [False, True])
def test_the_simulator_warns_that_unseeded_repeats_are_copies(
    sim, tmp_path: Path, capsys: pytest.CaptureFixture[str], seeded: bool
) -> None:
    server = sim(model="m", seed=6)
    config = tmp_path / "run.yaml"
    generation = "    generation: {seed: 0}\n" if seeded else ""
    config.write_text(
        "run: rep\ntasks:\n  - {name: gsm8k, limit: 3, repeats: 2}\n"
        f"models:\n  - name: m\n    base_url: {server.base_url}\n{generation}"
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    warned = "repeats are copies of one reply" in capsys.readouterr().err
    assert warned is not seeded


def test_an_unreachable_hub_with_nothing_cached_fails_at_once(tmp_path: Path) -> None:
    code = (
        "from thinkeval.tasks import load_samples\n"
        "try:\n    load_samples('gsm8k', None)\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)"
    )
    env = {**os.environ, "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path)}
    for name in ("HF_HUB_OFFLINE", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                 "ALL_PROXY", "all_proxy", "THINKEVAL_DATA_DIR"):  # fmt: skip
        env.pop(name, None)
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert time.monotonic() - started < 10  # was about 25 s of huggingface_hub's retries
    assert out.stdout.startswith("DatasetError cannot download openai/gsm8k"), out.stdout
    assert "not in the cache" in out.stdout


def test_progress_says_why_its_total_grows_and_what_was_recorded_earlier(
    capsys: pytest.CaptureFixture[str],
) -> None:
    progress = RunProgress(Console(file=io.StringIO()), interval_s=1e9)  # printed at the end
    with progress.shown():
        progress.add("a", "gsm8k", 4, already_done=6)  # a resumed run: 6 recorded before
        for state in ("finished", "unfinished"):
            progress.record(Attempt(model="a", task="gsm8k", sample_id="x", phase="fixed",
                                    budget=2048, max_tokens=2048, state=state))  # fmt: skip
    lines = [line for line in capsys.readouterr().err.splitlines() if "[progress]" in line]
    assert lines[1] == (
        "[progress] a gsm8k: 8/11 ok=1 trunc=1 fail=0 (+1 retries found so far, 6 recorded earlier)"
    )
    assert "(+1 retries found so far, 6 recorded earlier)" in lines[0]


@pytest.mark.parametrize("model", [None, "m"])
async def test_a_401_in_run_says_how_to_pass_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str | None
) -> None:
    from aiohttp import web

    async def refuse(request: web.Request) -> web.Response:
        return web.json_response({"error": {"message": "Invalid API key"}}, status=401)

    app = web.Application()
    app.router.add_get("/v1/models", refuse)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    monkeypatch.chdir(tmp_path)
    try:
        with pytest.raises(ThinkevalError) as raised:
            await thinkeval.evaluate_async(
                base_url=f"http://127.0.0.1:{port}/v1", tasks="gsm8k", limit=2,
                **({"model": model} if model else {}),
            )  # fmt: skip
    finally:
        await runner.cleanup()
    message = str(raised.value)
    assert "HTTP 401" in message and "pass the key with --api-key-env VAR" in message
    assert "Is the server up?" not in message


def test_changed_data_under_the_same_task_version_says_so(
    sim, tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m", seed=3)
    other = tmp_path / "data"
    shutil.copytree(data_dir / "gsm8k", other / "gsm8k")
    argv = ["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "2",
            "--output", str(tmp_path / "out"), "--data-dir", str(other)]  # fmt: skip
    assert main(argv) == 0
    test_file = other / "gsm8k" / "test.jsonl"
    lines = test_file.read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])
    lines[0] = json.dumps({**first, "question": first["question"] + " Be quick."}) + "\n"
    test_file.write_text("".join(lines), encoding="utf-8")
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "the task version is still" in err and "so its data or task file changed" in err
    assert "now 1" not in err


def test_an_unset_key_variable_is_named_as_given_not_as_an_internal_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "I23_UNSET"]) == 2
    err = capsys.readouterr().err
    assert "environment variable I23_UNSET (--api-key-env) is not set" in err
    assert "probe" not in err
