"""BFCL through the server's tool parser: requests with `tools`, `tool_calls` journalled, BFCL's
own AST checker, the protocol's verdicts and re-asks, against the simulator over real HTTP."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import orjson
import pytest

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.client.replies import StreamAssembly, parse_completion
from thinkeval.records import STATUSES, Attempt, ToolCall, decode_attempt
from thinkeval.scoring.bfcl import bfcl_module
from thinkeval.scoring.kinds.tool_calls import ToolCallsKind
from thinkeval.scoring.state import reply_state
from thinkeval.sim.behaviour import answer_key_from_samples
from thinkeval.sim.config import SimConfig
from thinkeval.tasks import iter_samples
from thinkeval.tasks.bfcl import CATEGORIES
from thinkeval.tasks.source import DataSource

KIND = ToolCallsKind()


def _sample(sample_id: str):  # type: ignore[no-untyped-def]
    return next(s for s in iter_samples("bfcl") if s.id == sample_id)


def test_the_data_and_tools_come_from_the_pinned_package() -> None:
    sources: list[DataSource] = []
    samples = list(iter_samples("bfcl", None, sources))
    assert len(samples) == 3641
    assert {s.origin for s in sources} == {"bfcl-eval==2026.3.23"}
    # Round-robin over the 13 categories: a limit asks every one.
    assert [s.subset for s in samples[:13]] == list(CATEGORIES)
    assert [s.id for s in samples[13:15]] == ["bfcl/simple_python_1", "bfcl/simple_java_1"]
    first = samples[0]
    assert first.id == "bfcl/simple_python_0" and first.subset == "simple_python"
    (tool,) = first.tools
    function = tool["function"]
    assert tool["type"] == "function" and function["parameters"]["type"] == "object"
    assert function["description"].endswith(
        "Note that the provided function is in Python 3 syntax."
    )
    dotted = _sample("bfcl/simple_python_1")
    assert dotted.tools[0]["function"]["name"] == "math_factorial"  # OpenAI names have no dots
    assert orjson.loads(dotted.gold)["functions"][0]["name"] == "math.factorial"


def test_bfcl_s_checker_judges_the_calls() -> None:
    gold = _sample("bfcl/simple_python_1").gold
    right = [ToolCall(name="math_factorial", arguments='{"number": 5}')]
    assert KIND.judge_calls(right, gold).status == "correct"
    wrong = KIND.judge_calls([ToolCall(name="math_factorial", arguments='{"number": 6}')], gold)
    assert (wrong.status, wrong.rule) == ("wrong", "value_error:others")
    assert KIND.judge_calls(None, gold).status == "no_answer"
    broken = [ToolCall(name="math_factorial", arguments='{"number": ')]
    assert KIND.judge_calls(broken, gold).rule == "arguments-not-json-object"
    irrelevant = next(s for s in iter_samples("bfcl") if s.subset == "irrelevance").gold
    assert KIND.judge_calls(None, irrelevant).status == "correct"
    assert KIND.judge_calls(right, irrelevant).status == "wrong"


def test_the_reply_state_of_tool_calls() -> None:
    call = [ToolCall(name="f", arguments="{}")]
    assert reply_state(None, "tool_calls", call).state == "finished"
    assert reply_state("", "stop", call).state == "finished"
    assert reply_state(None, "length", call).state == "unfinished"
    # A call written only in the reasoning is no call: the empty content is empty.
    assert reply_state(None, "stop", None).state == "empty"


def test_tool_calls_are_read_from_replies_and_streams() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "reasoning": "I should call f.",
        "tool_calls": [
            {"id": "chatcmpl-tool-1", "type": "function",
             "function": {"name": "f", "arguments": '{"x": 1}'}},
        ],
    }  # fmt: skip
    body = {"choices": [{"message": message, "finish_reason": "tool_calls"}], "usage": {}}
    reply, _ = parse_completion(body)
    assert reply.tool_calls == [ToolCall(name="f", arguments='{"x": 1}', id="chatcmpl-tool-1")]
    assembly = StreamAssembly(0.0)
    pieces = [
        {"index": 0, "id": "chatcmpl-tool-1", "type": "function",
         "function": {"name": "f", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"x": '}},
        {"index": 0, "function": {"arguments": "1}"}},
    ]  # fmt: skip
    for piece in pieces:
        assembly.add({"choices": [{"delta": {"tool_calls": [piece]}, "finish_reason": None}]})
    assembly.add({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    assert assembly.reply().tool_calls == reply.tool_calls
    empty, _ = parse_completion({"choices": [{"message": {"content": "hi", "tool_calls": []}}]})
    assert empty.tool_calls is None


def _run(tmp_path: Path, stream: bool, limit: int = 60) -> list[Attempt]:
    tmp_path.mkdir(exist_ok=True)
    samples = list(iter_samples("bfcl"))
    config = SimConfig(port=0, model="m", p_long=0.3, p_malformed=0.15, p_wrong=0.2)
    server = ThreadedSim(config, answer_key_from_samples(samples)).start()
    try:
        entry = {"name": "m", "base_url": server.base_url, "concurrency": 8, "stream": stream}
        tasks = [{"name": "bfcl", "limit": limit}]
        path = write_config(tmp_path / "run.yaml", {"run": "tools", "tasks": tasks,
                                                    "models": [entry]})  # fmt: skip
        assert main(["run", str(path), "--output", str(tmp_path / "out")]) == 0
    finally:
        server.stop()
    lines = (tmp_path / "out" / "journal" / "main.jsonl").read_bytes().splitlines()
    return [decode_attempt(line) for line in lines]


def test_streamed_calls_are_the_same_calls(tmp_path: Path) -> None:
    def calls(run: list[Attempt]) -> dict[tuple[str, str], object]:
        return {
            (a.sample_id, a.phase): (
                a.finish_reason,
                [(c.name, c.arguments) for c in a.calls or ()],
                a.verdicts["strict"],
            )
            for a in run
        }

    plain = calls(_run(tmp_path / "plain", stream=False, limit=24))
    streamed = calls(_run(tmp_path / "streamed", stream=True, limit=24))
    assert streamed == plain
    assert any(finish == "tool_calls" for finish, _, _ in plain.values())


def test_bfcl_end_to_end_against_the_simulator(tmp_path: Path) -> None:
    attempts = _run(tmp_path, stream=False)
    assert all(a.request["tools"] for a in attempts)
    statuses = {a.verdicts["strict"].status for a in attempts}
    assert statuses <= set(STATUSES) and {"correct", "wrong", "no_answer"} <= statuses
    called = [a for a in attempts if a.calls]
    assert called and all(a.finish_reason in ("tool_calls", "length") for a in called)
    for attempt in called:
        if attempt.finish_reason == "tool_calls":
            assert attempt.state == "finished" and attempt.content is None
    # Cut off by the budget (in the reasoning or in a call): asked again at B2.
    cut = [a for a in attempts if a.phase == "fixed" and a.state in ("unfinished", "empty")]
    retried = {a.sample_id for a in attempts if a.phase == "retry"}
    assert cut and {a.sample_id for a in cut} <= retried
    # The call only in the reasoning: no call, no answer.
    only_thought = [
        a
        for a in attempts
        if not a.calls and "<tool_call>" in (a.reasoning or "") and a.state == "finished"
    ]
    assert only_thought and all(a.verdicts["strict"].status == "no_answer" for a in only_thought)
    (result,) = json.loads((tmp_path / "out" / "summary.json").read_text())["results"]
    assert result["fixed"]["correct"] == sum(
        a.phase == "fixed" and a.verdicts["strict"].status == "correct" for a in attempts
    )


def test_another_bfcl_eval_release_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.metadata

    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata,
        "version",
        lambda name: "2025.1.1" if name == "bfcl-eval" else real(name),
    )
    bfcl_module.cache_clear()
    try:
        argv = ["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--tasks", "bfcl",
                "--output", str(tmp_path / "out")]  # fmt: skip
        assert main(argv) == 2
    finally:
        bfcl_module.cache_clear()
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    assert "bfcl-eval 2025.1.1 is installed; thinkeval pins 2026.3.23" in line
    assert "pip install --no-deps bfcl-eval==2026.3.23" in line
    assert "Traceback" not in err


def test_a_server_without_a_tool_parser_stops_the_model_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = list(iter_samples("bfcl"))[:4]
    config = SimConfig(port=0, model="m", tool_parser_off=1)
    server = ThreadedSim(config, answer_key_from_samples(samples)).start()
    try:
        argv = ["run", "--base-url", server.base_url, "--tasks", "bfcl", "--limit", "4",
                "--output", str(tmp_path / "out")]  # fmt: skip
        assert main(argv) == 2
    finally:
        server.stop()
    err = " ".join(capsys.readouterr().err.split())
    assert "parses no tool calls" in err and "--enable-auto-tool-choice --tool-call-parser" in err
    assert "Traceback" not in err
    journal = tmp_path / "out" / "journal" / "main.jsonl"
    assert not journal.exists() or journal.read_bytes() == b""  # nothing partial recorded


def test_tasks_show_prints_the_tools_a_sample_sends(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "show", "bfcl", "--sample", "0", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [tool["function"]["name"] for tool in shown["tools"]] == ["calculate_triangle_area"]
    assert main(["tasks", "show", "bfcl", "--sample", "0"]) == 0
    assert '"name": "calculate_triangle_area"' in capsys.readouterr().out


def test_a_judge_model_is_never_asked_about_tool_calls(tmp_path: Path, sim) -> None:  # type: ignore[no-untyped-def]
    attempts = _run(tmp_path, stream=False, limit=6)
    assert any(a.state == "finished" for a in attempts)
    judge_server = sim(model="judge", seed=9)
    argv = ["judge", str(tmp_path / "out"), "--base-url", judge_server.base_url, "--model", "judge"]
    assert main(argv) == 0
    url = f"{judge_server.base_url.removesuffix('/v1')}/sim/stats"
    with urllib.request.urlopen(url) as reply:
        assert json.load(reply)["requests"] == 0


def test_score_reads_the_calls_given() -> None:
    import thinkeval

    gold = _sample("bfcl/simple_python_1").gold
    calls = [ToolCall(name="math_factorial", arguments='{"number": 5}')]
    assert thinkeval.score("bfcl", None, "tool_calls", gold, tool_calls=calls).status == "correct"
    assert thinkeval.score("bfcl", None, "length", gold, tool_calls=calls).status == "unfinished"
    assert thinkeval.score("bfcl", "I'd call it.", "stop", gold).status == "no_answer"


def test_a_call_cut_by_the_budget_is_unfinished(tmp_path: Path) -> None:
    """The simulator writes the call right away without thinking; cut inside its block, the
    half call stays content (no parser reads it) and the reply is unfinished, asked again."""
    sample = _sample("bfcl/simple_python_1")
    server = ThreadedSim(SimConfig(port=0, model="m", p_wrong=0.0, p_malformed=0.0,
                                   p_empty=0.0, p_never=0.0),
                         answer_key_from_samples([sample])).start()  # fmt: skip
    try:
        replies = []
        for budget in (6, 200):
            body = {
                "model": "m",
                "messages": list(sample.messages),
                "tools": list(sample.tools),
                "max_tokens": budget,
                "chat_template_kwargs": {"enable_thinking": False},
            }
            request = urllib.request.Request(
                f"{server.base_url}/chat/completions",
                data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request) as answer:
                replies.append(parse_completion(json.load(answer))[0])
    finally:
        server.stop()
    cut, whole = replies
    assert cut.finish_reason == "length" and cut.tool_calls is None
    assert (cut.content or "").startswith("<tool_call>")
    assert (
        KIND and reply_state(cut.content, cut.finish_reason, cut.tool_calls).state == "unfinished"
    )
    assert whole.finish_reason == "tool_calls" and whole.content is None
    assert whole.tool_calls is not None
    assert KIND.judge_calls(whole.tool_calls, sample.gold).status == "correct"
