"""`retry: continue` end to end against the simulator over real HTTP: the same verdicts as a
re-ask under greedy decoding, fewer generated tokens, refusal where the server has no token ids,
and resuming between the two requests of a continuation."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import kill_and_resume, write_config
from thinkeval.cli import main
from thinkeval.report import build_report, render_markdown
from thinkeval.report.sections.tokens import SECTION as TOKENS
from thinkeval.store.journal import iter_attempts

TASKS = [{"name": "gsm8k", "limit": 40}, {"name": "ceval", "limit": 40}]


def stats(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as resp:
        return json.load(resp)


def model_entry(url: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": "m",
        "base_url": url,
        "concurrency": 8,
        "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.05,
        "generation": {"temperature": 0.0},
        **extra,
    }


def run(tmp_path: Path, name: str, url: str, **extra: Any) -> Path:
    config = write_config(
        tmp_path / f"{name}.yaml",
        {"run": name, "tasks": TASKS, "models": [model_entry(url, **extra)]},
    )
    assert main(["run", str(config), "--output", str(tmp_path / name)]) == 0
    return tmp_path / name


def test_continue_gives_the_reask_replies_and_generates_each_token_once(tmp_path, sim) -> None:
    knobs = {"model": "m", "seed": 5, "p_long": 0.4, "p_never": 0.1, "p_empty": 0.05}
    reask_sim, continue_sim = sim(**knobs), sim(**knobs)
    reask = run(tmp_path, "reask", reask_sim.base_url)
    cont = run(tmp_path, "cont", continue_sim.base_url, retry="continue")

    def replies(run_dir: Path) -> dict[Any, Any]:
        return {
            (x.sample_id, x.phase): (
                x.recorded_status(),
                x.content,
                x.reasoning,
                x.finish_reason,
                x.usage.completion_tokens,
            )
            for x in iter_attempts(run_dir)
        }

    assert replies(cont) == replies(reask)
    retries = [x for x in iter_attempts(cont) if x.phase == "retry"]
    continued = [x for x in retries if x.continuation and x.continuation.requested]
    assert len(continued) > 5
    for x in continued:
        assert x.continuation is not None
        carried = x.continuation.from_tokens
        assert x.continuation.completion_tokens == x.usage.completion_tokens - carried
    # Only cut-off fixed replies keep their token ids.
    fixed = [x for x in iter_attempts(cont) if x.phase == "fixed"]
    assert all(
        (x.token_ids is not None)
        == (x.state in ("empty", "unfinished") and x.finish_reason == "length")
        for x in fixed
    )
    s_reask, s_cont = stats(reask_sim.base_url), stats(continue_sim.base_url)
    # The floor: each sample's last reply generated once.
    floor = sum(
        x.usage.completion_tokens
        for x in iter_attempts(reask)
        if x.phase == "retry" or x.state not in ("empty", "unfinished")
    )
    # The probe asks 1 token and continues it by 1.
    assert s_cont["generation_tokens"] <= floor + 2 < s_reask["generation_tokens"]
    assert s_cont["continuations"] == len(continued) + 1
    assert s_cont["continuations_diverged"] == 0

    # The report's token accounting says which retry was used and what it cost the server.
    rows = {
        (r.task, r.retry): r for r in TOKENS.numbers(build_report([cont])).tokens if r.task != "all"
    }
    again = {
        (r.task, r.retry): r
        for r in TOKENS.numbers(build_report([reask])).tokens
        if r.task != "all"
    }
    assert {retry for _, retry in rows} == {"continue"} and {r for _, r in again} == {"reask"}
    for (task, _), row in rows.items():
        other = again[(task, "reask")]
        assert row.floor == other.floor and row.fixed_generated == other.fixed_generated
        assert row.generated == row.floor  # greedy: every token generated once
        assert other.generated > other.floor and other.ratio is not None and other.ratio > 1.1
        assert row.retry_prompt > other.retry_prompt  # the carried tokens are prefilled again
    assert sum(r.generated for r in rows.values()) == s_cont["generation_tokens"] - 2
    assert sum(r.generated for r in again.values()) == s_reask["generation_tokens"]
    text = render_markdown(build_report([cont]))
    assert "Server tokens" in text and "| continue |" in text.replace("  ", " ")


def unit_counts(run_dir: Path) -> Counter[tuple[str, int, str]]:
    return Counter(
        (x.sample_id, x.repeat, x.phase) for x in iter_attempts(run_dir) if x.error is None
    )


def test_resume_between_the_two_requests_sends_only_the_continuations(tmp_path, sim) -> None:
    server = sim(model="m", seed=6, p_long=0.4)
    done = run(tmp_path, "cont", server.base_url, retry="continue")
    before = {(x.sample_id, x.phase): (x.content, x.reasoning) for x in iter_attempts(done)}
    journal = done / "journal" / "main.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    fixed_only = [line for line in lines if json.loads(line)["phase"] == "fixed"]
    continued = sum(1 for line in lines if '"requested":true' in line.replace(" ", ""))
    assert continued > 5
    journal.write_text("".join(fixed_only))  # killed after every fixed reply, before its retry
    asked = stats(server.base_url)

    assert main(["run", str(tmp_path / "cont.yaml"), "--output", str(done)]) == 0
    now = stats(server.base_url)
    chats = (now["requests"] - now["continuations"]) - (asked["requests"] - asked["continuations"])
    assert chats == 1  # the probe; no fixed request is asked again
    assert now["continuations"] - asked["continuations"] == continued + 1  # and the probe's
    assert {(x.sample_id, x.phase): (x.content, x.reasoning) for x in iter_attempts(done)} == before
    assert set(unit_counts(done).values()) == {1}


def test_sigkill_during_continuations_then_resume_completes_each_sample_once(tmp_path, sim) -> None:
    knobs = {"model": "m", "seed": 7, "p_long": 0.5, "per_token_s": 0.00002, "latency_s": 0.01}
    clean_sim, killed_sim = sim(**knobs), sim(**knobs)
    clean = run(tmp_path, "clean", clean_sim.base_url, retry="continue")
    config = write_config(
        tmp_path / "killed.yaml",
        {
            "run": "killed",
            "tasks": TASKS,
            "models": [model_entry(killed_sim.base_url, retry="continue")],
        },
    )
    kills = 4
    kill_and_resume(config, tmp_path / "killed", kills=kills, every=15)

    killed = tmp_path / "killed"
    assert set(unit_counts(killed).values()) == {1}
    assert {
        k: (x.content, x.recorded_status())
        for x in iter_attempts(killed)
        for k in [(x.sample_id, x.phase)]
    } == {
        k: (x.content, x.recorded_status())
        for x in iter_attempts(clean)
        for k in [(x.sample_id, x.phase)]
    }
    s_clean, s_killed = stats(clean_sim.base_url), stats(killed_sim.base_url)
    processes = kills + 1  # each probes once: one chat request and one continuation
    chats = {
        name: s["requests"] - s["continuations"]
        for name, s in (("clean", s_clean), ("killed", s_killed))
    }
    # Nothing asked twice beyond the one request in flight per worker at each kill.
    assert chats["killed"] - processes <= chats["clean"] - 1 + kills * 8
    assert s_killed["continuations"] - processes <= s_clean["continuations"] - 1 + kills * 8


@pytest.mark.parametrize(
    ("api", "where"), [("sglang", "models[0].retry"), ("openai", "models[0].retry")]
)
def test_continue_is_refused_for_a_server_without_token_ids(
    tmp_path, sim, capsys, api: str, where: str
) -> None:
    server = sim(model="m", profile=api)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "r",
            "tasks": TASKS,
            "models": [model_entry(server.base_url, api=api, retry="continue")],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and where in err[0] and "retry: continue" in err[0]
    assert "Traceback" not in err[0]
    assert stats(server.base_url)["requests"] == 0


def test_a_task_asking_continue_of_an_sglang_model_is_refused(tmp_path, sim, capsys) -> None:
    server = sim(model="m", profile="sglang")
    tasks = [{"name": "gsm8k", "limit": 5, "retry": "continue"}]
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "r", "tasks": tasks, "models": [model_entry(server.base_url, api="sglang")]},
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "tasks[0].retry" in err and "for model 'm'" in err
    assert stats(server.base_url)["requests"] == 0


def test_continue_with_a_thinking_budget_is_refused_before_any_request(
    tmp_path, sim, capsys
) -> None:
    server = sim(model="m")
    entry = {**model_entry(server.base_url, retry="continue"), "reasoning": {"budget": 512}}
    config = write_config(tmp_path / "run.yaml", {"run": "r", "tasks": TASKS, "models": [entry]})
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "models[0].retry" in err[0] and "reasoning.budget" in err[0]
    assert stats(server.base_url)["requests"] == 0


def test_the_probe_refuses_a_server_that_returns_no_token_ids(tmp_path, sim, capsys) -> None:
    # An SGLang server behind `api: vllm`: the config cannot tell, the probe does.
    server = sim(model="m", profile="sglang")
    run_dir = tmp_path / "out"
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "r", "tasks": TASKS, "models": [model_entry(server.base_url, retry="continue")]},
    )
    assert main(["run", str(config), "--output", str(run_dir)]) != 0
    err = capsys.readouterr().err
    assert "retry: continue cannot run against this server" in err
    assert "no token ids" in err
    assert stats(server.base_url)["requests"] == 1  # the probe alone
    assert not list(iter_attempts(run_dir))


@pytest.mark.parametrize(
    ("profile", "api", "supported"),
    [
        ("vllm-latest", None, "supported (token ids and /v1/completions)"),
        ("vllm-0.10", None, "supported (token ids and /v1/completions)"),
        ("sglang", None, "not supported: the sglang API returns no token ids"),
        ("sglang", "vllm", "not supported: the server returns no token ids"),
    ],
)
def test_check_says_whether_the_server_can_continue(
    capsys, sim, profile: str, api: str | None, supported: str
) -> None:
    server = sim(
        model="m",
        profile=profile,
        p_long=0.0,
        p_never=0.0,
        p_wrong=0.0,
        p_malformed=0.0,
        p_empty=0.0,
    )
    argv = ["check", "--base-url", server.base_url, *(["--api", api] if api else []), "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["continue_ok"] is supported.startswith("supported")
    assert main(argv[:-1]) == 0
    assert supported in capsys.readouterr().out


def test_a_run_never_mixes_reask_and_continue(tmp_path, sim, capsys) -> None:
    server = sim(model="m", seed=8, p_long=0.4)
    run(tmp_path, "mix", server.base_url)
    config = write_config(
        tmp_path / "mix.yaml",
        {"run": "mix", "tasks": TASKS, "models": [model_entry(server.base_url, retry="continue")]},
    )
    capsys.readouterr()
    assert main(["run", str(config), "--output", str(tmp_path / "mix")]) == 2
    err = capsys.readouterr().err
    assert "run with retry 'reask'" in err and "now says 'continue'" in err
    tasks = [{**TASKS[0], "retry": "continue"}, TASKS[1]]
    config = write_config(
        tmp_path / "mix.yaml",
        {"run": "mix", "tasks": tasks, "models": [model_entry(server.base_url)]},
    )
    assert main(["run", str(config), "--output", str(tmp_path / "mix")]) == 2
    assert "task 'gsm8k' was run with retry" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("reasoning", "content", "more", "joined"),
    [
        # Cut off inside the thinking: the reasoning goes on up to </think>, the rest is content.
        (
            "\nLet me add 3",
            None,
            " and 4.\n</think>\n\nThe answer is 7",
            ("\nLet me add 3 and 4.\n", "\n\nThe answer is 7"),
        ),
        # ... and still no </think> at B2: no content.
        ("\nLet me", None, " think more", ("\nLet me think more", None)),
        # Cut off in the answer: the content goes on.
        ("\nR\n", "\n\nThe answer", " is 7", ("\nR\n", "\n\nThe answer is 7")),
        # Thinking off: content only.
        (None, "The ans", "wer is 7", (None, "The answer is 7")),
    ],
)
def test_the_joined_reply_splits_where_the_reasoning_parser_would(
    reasoning: str | None, content: str | None, more: str, joined: tuple[str | None, str | None]
) -> None:
    from thinkeval.client.continuation import join

    assert join(reasoning, content, more) == joined
