"""A BFCL reply's tool calls in the sample browser: shown under their label, as text."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from playwright.sync_api import Browser

from browsing import browser
from test_report_runs import make_run, reply
from thinkeval.records import Attempt, ToolCall
from thinkeval.report import build_report, render_html
from thinkeval.tasks import iter_samples

__all__ = ["browser"]  # the fixture, imported for pytest
HOSTILE = '{"number": "</script><img src=x onerror=alert(1)>"}'


def _called(attempt: Attempt, calls: list[ToolCall]) -> Attempt:
    return msgspec.structs.replace(
        attempt, content=None, finish_reason="tool_calls", tool_calls=calls, state="finished"
    )


def test_tool_calls_are_shown_as_text(browser: Browser, tmp_path: Path) -> None:
    sample = next(s for s in iter_samples("bfcl") if s.id == "bfcl/simple_python_1")
    right = [ToolCall(name="math_factorial", arguments='{"number": 5}', id="call-1")]
    hostile = [ToolCall(name="math_factorial", arguments=HOSTILE)]
    attempts = [
        _called(reply("alpha", sample, "fixed", "no_answer"), right),
        _called(reply("beta", sample, "fixed", "no_answer"), hostile),
    ]
    run = make_run(tmp_path / "run", {"bfcl": [sample]}, attempts, ["alpha", "beta"])
    page_file = run / "report.html"
    page_file.write_text(render_html(build_report([run], resamples=100)), encoding="utf-8")
    page = browser.new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a reply ran script: {dialog.message}"))
    page.goto(page_file.as_uri())
    page.locator("#f-model").select_option("beta")
    page.locator("#sample-list:not([aria-busy])").wait_for(state="attached")
    cards = page.locator("#sample-list article")
    assert "Tool calls" in cards.first.inner_text()
    texts = page.locator("#sample-list article pre").all_inner_texts()
    assert any("onerror=alert(1)" in text and "math_factorial" in text for text in texts)
    assert page.locator("#sample-list img, #sample-list script").count() == 0
    # The right call is judged correct by BFCL's checker (the hostile one: a string, wrong).
    page.locator("#f-model").select_option("alpha")
    page.locator("#sample-list:not([aria-busy])").wait_for(state="attached")
    assert "correct" in page.locator("#sample-list article").first.inner_text()
