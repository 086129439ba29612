"""The sample browser shows each reply's diagnosis as a badge and highlights a loop's block
(Chromium through Playwright, as tests/test_report_browser.py; they fail, never skip, without
it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser

from browsing import browser, open_samples
from conftest import write_config
from thinkeval.report import build_report, render_html

__all__ = ["browser"]  # the fixture, imported for pytest


def test_badges_and_the_highlighted_loop(tmp_path: Path, sim: Any, browser: Browser) -> None:
    server = sim(
        model="m",
        seed=5,
        p_long=0.0,
        p_wrong=0.0,
        p_malformed=0.0,
        p_empty=0.0,
        p_never=1.0,
        p_loop=1.0,
    )
    config = write_config(tmp_path / "loop.yaml", {
        "run": "loop", "budgets": [1024, 2048], "tasks": [{"name": "gsm8k", "limit": 4}],
        "models": [{"name": "m", "base_url": server.base_url}]})  # fmt: skip
    run_dir = tmp_path / "loop"
    # Playwright's sync API holds an event loop in this process: the run gets a process.
    command = [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(run_dir)]
    assert subprocess.run(command, capture_output=True, check=False).returncode == 0
    page_file = run_dir / "report.html"
    page_file.write_text(render_html(build_report([run_dir], resamples=100)), encoding="utf-8")
    page = open_samples(browser, page_file.as_uri())
    badges = page.locator("#sample-list .badge.diagnosis-loop")
    assert badges.count() == 8  # every reply, fixed and retry, of the four samples
    assert badges.first.inner_text() == "diagnosis: loop"
    marks = page.locator("#sample-list pre mark.loop")
    assert marks.count() >= 16  # the repeated block, at least twice per reply shown
    assert page.locator("#sample-list pre mark.loop script").count() == 0
