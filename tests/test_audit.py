"""`thinkeval check --audit` over real HTTP against the simulator: every check passes against a
well-configured server, and each misbehaviour the simulator can be switched to fails exactly
the check made to catch it (exit 1, the evidence naming what was asked and what came back)."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from thinkeval.cli import check as check_cli
from thinkeval.ops.audit import CHECKS

# A simulated model whose probe finishes and reasons long enough to measure a budget.
WELL = {
    "p_long": 0.0,
    "p_never": 0.0,
    "p_malformed": 0.0,
    "p_empty": 0.0,
    "short_tokens": (300, 600),
    "repetition_detection": 1,
}


def audit(capsys: pytest.CaptureFixture[str], base_url: str, *extra: str) -> tuple[int, Any, str]:
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    argv = ["--base-url", base_url, "--audit", "--json", "--concurrency", "4", *extra]
    code = check_cli.run(parser.parse_args(["--audit-max-tokens", "1024", *argv]))
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {check["id"]: check["status"] for check in report["checks"]}


def test_a_well_configured_server_passes_every_check(capsys, sim) -> None:
    server = sim(**WELL)
    code, report, err = audit(capsys, server.base_url)
    assert code == 0, report
    assert statuses(report) == dict.fromkeys(CHECKS, "pass")
    assert report["ok"] is True and report["engine_version"] == "0.33.0"
    assert report["model"] == "sim-qwen3" and report["api"] == "vllm"
    # Bounded: 4 for the first checks, --concurrency, top_k, budget, effort, loop, window.
    assert report["requests"] == 3 + 4 + 5
    assert "waiting on 4 greedy requests at once" in err
    by_id = {check["id"]: check for check in report["checks"]}
    assert by_id["finish_length"]["evidence"] == (
        "asked max_tokens 128, got finish_reason length at 128"
    )
    assert "refused (window of 40960)" in by_id["context_window"]["evidence"]


@pytest.mark.parametrize(
    ("knobs", "failing", "evidence"),
    [
        ({"reasoning_field": "reasoning_content"}, "reasoning_field", "documents `reasoning`"),
        ({"parser_off": 1}, "reasoning_field", "inside content"),
        ({"ignore_reasoning_budget": True}, "budget", "the budget is ignored"),
        ({"ignore_reasoning_effort": True}, "effort", "the effort is ignored"),
        ({"ignore_top_k": True}, "top_k", "1 of 1 differ"),
        ({"wrong_finish_at_limit": True}, "finish_length", "finish_reason stop at 128"),
        ({"drop_repetition": True}, "repetition", "finish_reason stop at"),
        ({"card_max_model_len": 50000}, "context_window", "naming a window of 40960"),
        ({"card_max_model_len": 32768}, "context_window", "32769 accepted"),
        ({"batch_nondeterminism": True, "latency_s": 0.05}, "determinism", "of 4 differ"),
    ],
)
def test_each_misbehaviour_fails_its_check(
    capsys, sim, knobs: dict[str, Any], failing: str, evidence: str
) -> None:
    server = sim(**{**WELL, **knobs})
    code, report, _ = audit(capsys, server.base_url)
    assert code == 1
    failed = {check["id"]: check["evidence"] for check in report["checks"]}
    assert [name for name, status in statuses(report).items() if status == "fail"] == [failing]
    assert evidence in failed[failing]


def test_temperature_ignored_fails_and_leaves_top_k_without_a_reference(capsys, sim) -> None:
    server = sim(**WELL, ignore_temperature=True)
    code, report, _ = audit(capsys, server.base_url)
    assert code == 1
    found = statuses(report)
    assert found["temperature"] == "fail" and found["determinism"] == "fail"
    assert found["top_k"] == "skipped"


def test_old_vllm_parser_is_a_warning_and_its_field_passes(capsys, sim) -> None:
    server = sim(**WELL, profile="vllm-0.10")
    code, report, _ = audit(capsys, server.base_url)
    assert code == 0
    found = statuses(report)
    assert found["split_length"] == "warn" and found["reasoning_field"] == "pass"
    assert report["engine_version"] == "0.10.2"


def test_skipped_checks_are_listed_and_ask_nothing(capsys, sim) -> None:
    server = sim(**WELL, ignore_reasoning_effort=True, ignore_reasoning_budget=True)
    code, report, _ = audit(capsys, server.base_url, "--skip", "budget,effort")
    assert code == 0
    assert statuses(report)["budget"] == statuses(report)["effort"] == "skipped"
    assert report["requests"] == 3 + 4 + 3


def test_text_output_is_one_line_per_check(capsys, sim) -> None:
    server = sim(**WELL, ignore_top_k=True)
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    args = ["--base-url", server.base_url, "--audit", "--audit-max-tokens", "1024"]
    code = check_cli.run(parser.parse_args(args))
    out, err = capsys.readouterr()
    assert code == 1
    lines = out.strip().splitlines()
    assert len(lines) == 1 + len(CHECKS) + 0  # header + checks; the verdict goes to stderr
    assert any(line.startswith("FAIL") and " top_k " in line for line in lines)
    assert "check failed: the audit failed top_k" in err


def test_an_unknown_skip_is_bad_input(capsys, sim) -> None:
    from thinkeval.cli import main

    server = sim(**WELL)
    code = main(["check", "--base-url", server.base_url, "--audit", "--skip", "nope"])
    assert code == 2
    assert "--skip nope: no such check" in capsys.readouterr().err


def test_an_unreachable_server_is_one_line(capsys) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, report, _ = audit(capsys, f"http://127.0.0.1:{port}/v1")
    assert code == 1 and report["checks"] == []
    assert report["reason"].startswith(f"cannot read http://127.0.0.1:{port}/v1/models")


def test_hidden_reasoning_is_a_warning_and_no_top_k_for_openai(capsys, sim) -> None:
    server = sim(**WELL, profile="openai")
    code, report, _ = audit(capsys, server.base_url)
    found = statuses(report)
    assert code == 0 and report["api"] == "openai"
    assert found["reasoning_field"] == "warn"
    assert found["split_stop"] == found["split_length"] == found["top_k"] == "skipped"
    assert found["budget"] == "skipped" and found["context_window"] == "warn"


def test_without_a_repetition_detector_the_check_is_skipped_not_failed(capsys, sim) -> None:
    server = sim(**{**WELL, "repetition_detection": 0})
    code, report, _ = audit(capsys, server.base_url)
    check = next(c for c in report["checks"] if c["id"] == "repetition")
    assert code == 0 and check["status"] == "skipped"
    assert "finish_reason length at 1024 tokens: the server has no repetition" in check["evidence"]
