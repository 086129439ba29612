"""llama.cpp's HTTP 500 "The model produced output that does not match the expected peg-native
format" (issue #36) is the model's finished reply that the server could not deliver in its
template's format, not a transport failure: asked once (never retried, never asked again at
B2), journalled as a reply with the server's words, `no_answer` by rule `server-unparsed` in
the journal, the summary, `rescore`, `verify`, the report and `thinkeval.score()`; the run is
complete. A real aiohttp server on 127.0.0.1 answers with llama.cpp's exact body.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import thinkeval
from conftest import write_config
from stub_servers import ThreadedApp, refusing_app
from thinkeval.cli import main
from thinkeval.client.profiles import get_profile
from thinkeval.client.replies import RequestFailed

# tools/server/server.cpp's error reply to common/chat.cpp's exception (llama.cpp build 11434).
WORDS = "The model produced output that does not match the expected peg-native format"
BODY = {"error": {"code": 500, "message": WORDS, "type": "server_error"}}
SAMPLES = 2


def test_llamacpp_words_it_unparsed_and_never_retried() -> None:
    failure = get_profile("llamacpp").failure(500, orjson.dumps(BODY), None)
    assert (failure.kind, failure.retryable, failure.http_status) == ("unparsed_output", False, 500)
    assert WORDS in failure.message
    # Another 500 from llama.cpp stays a server error, asked again.
    other = {"error": {"code": 500, "message": "Failed to parse messages: x", "type": "x"}}
    failure = get_profile("llamacpp").failure(500, orjson.dumps(other), None)
    assert (failure.kind, failure.retryable) == ("server_error", True)


def test_the_same_words_in_a_llamacpp_stream_are_unparsed_too() -> None:
    stream = get_profile("llamacpp").stream(0.0)
    stream.add({"choices": [{"index": 0, "delta": {"content": "4"}}]})
    with pytest.raises(RequestFailed) as raised:
        stream.add(BODY)  # the error event that ends the stream once the output is final
    assert (raised.value.kind, raised.value.retryable) == ("unparsed_output", False)


def test_the_score_api_gives_an_unparsed_reply_no_answer_by_its_rule() -> None:
    for scorer in ("strict", "lenient"):
        verdict = thinkeval.score("gsm8k", None, None, "18", scorer=scorer, unparsed=True)
        assert (verdict.status, verdict.rule) == ("no_answer", "server-unparsed")


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    journal = run_dir / "journal" / "main.jsonl"
    return [json.loads(line) for line in journal.read_text().splitlines()]


def test_a_run_counts_it_no_answer_once_and_completes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ThreadedApp(refusing_app(500, BODY)) as server:
        model = {"name": "m", "base_url": server.base_url, "api": "llamacpp"}
        model |= {"max_retries": 3, "retry_backoff_s": 0.01}
        tasks = [{"name": "gsm8k", "limit": SAMPLES}]
        config = write_config(
            tmp_path / "run.yaml", {"run": "u", "tasks": tasks, "models": [model]}
        )
        run_dir = tmp_path / "out"
        assert main(["run", str(config), "--output", str(run_dir)]) == 0
        assert server.seen.requests == SAMPLES  # one request each: no retry, no B2

    rows = _rows(run_dir)
    assert [row["phase"] for row in rows] == ["fixed"] * SAMPLES
    for row in rows:
        assert row["error"] is None and row["error_kind"] is None and row["content"] is None
        assert row["state"] == "finished" and row["http_status"] == 500
        assert row["tries"] == 1 and WORDS in row["unparsed"]
        for verdict in row["verdicts"].values():
            assert (verdict["status"], verdict["rule"]) == ("no_answer", "server-unparsed")
    summary = json.loads((run_dir / "summary.json").read_text())
    (result,) = summary["results"]
    assert result["fixed"]["no_answer"] == result["adaptive"]["no_answer"] == SAMPLES
    assert result["fixed"]["error"] == 0

    capsys.readouterr()
    assert main(["rescore", str(run_dir), "--json"]) == 0
    rescored = json.loads(capsys.readouterr().out)
    assert all(r["changed"] == 0 for r in rescored["scorers"])
    assert json.loads((run_dir / "summary.json").read_text())["results"] == summary["results"]
    assert main(["verify", str(run_dir)]) == 0

    report = tmp_path / "report.html"
    assert main(["report", str(run_dir), "--format", "html", "--out", str(report)]) == 0
    assert WORDS in report.read_text(encoding="utf-8")


def test_the_words_shown_in_the_report_are_escaped(tmp_path: Path) -> None:
    body = {"error": {"code": 500, "message": f"{WORDS} <script>x</script>", "type": "e"}}
    with ThreadedApp(refusing_app(500, body)) as server:
        model = {"name": "m", "base_url": server.base_url, "api": "llamacpp"}
        tasks = [{"name": "gsm8k", "limit": 1}]
        config = write_config(
            tmp_path / "run.yaml", {"run": "u", "tasks": tasks, "models": [model]}
        )
        run_dir = tmp_path / "out"
        assert main(["run", str(config), "--output", str(run_dir)]) == 0
    report = tmp_path / "report.html"
    assert main(["report", str(run_dir), "--format", "html", "--out", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    # In the page's data as JSON with `<` escaped; the page shows it as a text node.
    assert "\\u003cscript\\u003ex" in html and "<script>x</script>" not in html
