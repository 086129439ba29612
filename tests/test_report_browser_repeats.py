"""The sample browser on a run with repeats and judge verdicts, in Chromium: the repeat filter,
the per-question view, the pairs compared over questions, the judge filter, in the file and as
`thinkeval view` serves it; screenshots of the new sections at 1000 px.

The run is `thinkeval demo --limit 8` judged by the simulator (tests/reported_runs.py): C-Eval,
BoolQ and GSM8K once per question and AIME 2025 four times, 8 questions each, two models.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from browsing import (
    browser,
    card_ids,
    file_or_served,
    open_samples,
    settle,
    settle_on,
    viewing,
)
from reported_runs import DEMO_MODELS, HOSTILE_ANSWER, QUESTIONS, K, demo, hostile_reply, judged
from test_report_browser import choose, matches
from thinkeval.report import Report, build_report, render_html
from thinkeval.report.sections.pairs import SECTION as PAIRS

__all__ = ["browser", "demo", "judged"]  # the fixtures, imported for pytest
A, B = DEMO_MODELS
ROWS = 3 * QUESTIONS * 2 + QUESTIONS * K * 2  # three tasks asked once, AIME four times


@pytest.fixture(scope="module")
def report(judged: Path) -> Report:
    return build_report([judged], resamples=300)


@pytest.fixture(scope="module")
def report_file(judged: Path, report: Report) -> Path:
    path = judged / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def served(judged: Path) -> Iterator[str]:
    with viewing(judged) as url:
        yield url


@pytest.fixture(params=["file", "served"])
def url(request: pytest.FixtureRequest, report_file: Path) -> str:
    return file_or_served(request, report_file)


def _shot(page: Page, name: str, url: str) -> None:
    """A screenshot for a person to look at, when $THINKEVAL_SCREENSHOTS names a folder."""
    folder = os.environ.get("THINKEVAL_SCREENSHOTS")
    if folder:
        mode = "file" if url.startswith("file:") else "served"
        page.screenshot(path=f"{folder}/repeats-{mode}-{name}.png")


def _fits(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_filter_by_repeat_and_one_card_per_question(browser: Browser, url: str) -> None:
    page = open_samples(browser, url + "#samples?task=aime25&repeat=2", width=1000)
    assert settle(page).startswith(f"{QUESTIONS * 2} of {ROWS} model replies match")
    shown = card_ids(page)
    assert shown and all(card.split(" · ")[0].endswith("#2") for card in shown)
    assert shown[:2] == [f"aime25/0#2 · {A}", f"aime25/0#2 · {B}"]
    assert choose(page, repeat="", view="question").startswith(
        f"{QUESTIONS * 2} model and question cards match ({QUESTIONS * K * 2} replies)"
    )
    first = page.locator("#sample-list article").first
    assert first.locator("table.repeats tr").count() == K + 1  # a line per repeat
    assert f"of its {K} repeats at the fixed budget" in first.inner_text()
    last = first.locator("details").filter(has_text="repeat #3").first
    assert not last.locator(".attempt").first.is_visible()  # folded until opened
    last.locator("summary").first.click()
    assert last.locator(".attempt").first.is_visible()
    assert _fits(page)
    _shot(page, "question-view", url)
    # The view is in the address: a link opens it again.
    assert page.evaluate("location.hash") == "#samples?task=aime25&view=question"


def test_question_cards_sort_by_the_tokens_of_all_their_replies(
    browser: Browser, url: str, report: Report
) -> None:
    assert report.browser is not None
    index = report.browser.index
    totals: dict[str, int] = {}
    for r, q in enumerate(index.row_question):
        if index.tasks[index.question_task[q]] == "aime25":
            card = f"{index.question_id[q]} · {index.models[index.row_model[r]]}"
            totals[card] = totals.get(card, 0) + max(index.row_tokens[r], 0)
    page = open_samples(browser, url + "#samples?task=aime25&view=question&sort=tokens-desc")
    assert card_ids(page)[:3] == sorted(totals, key=lambda card: -totals[card])[:3]


def test_pairs_over_questions_open_side_by_side(browser: Browser, url: str, report: Report) -> None:
    row = next(p for p in PAIRS.numbers(report).repeat_pairs if p.phase == "fixed")
    page = open_samples(browser, url, width=1000)
    page.locator("#pairs a[href*='task=aime25'][href*='phase=fixed'][href*='disc=a']").click()
    page.wait_for_url(lambda address: "disc=a" in address)
    assert settle_on(page, f"{A} is right").startswith(
        f"{row.a_more} samples answered by both where {A} is right"
    )
    assert card_ids(page) == row.a_more_ids
    for card in page.locator("#sample-list article").all():
        assert card.locator(".side").count() == 2
        assert card.locator(".side table.repeats").count() == 2
    _shot(page, "pair-view", url)


def test_the_judge_filter_lists_the_disagreements(
    browser: Browser, url: str, report: Report, judged: Path
) -> None:
    assert report.browser is not None
    disagreeing = list(report.browser.index.row_judge).count(2)
    page = open_samples(browser, url, width=1000)
    assert page.locator("#judge-filter").is_visible()
    choose(page, judge="disagree")
    assert matches(page) == disagreeing
    for card in page.locator("#sample-list article").all()[:5]:
        assert card.locator(".badge.disagree").count() == 1
        assert card.locator(".verdicts .judge.differs").count() == 1
    model, sample = hostile_reply(judged)
    choose(page, id=sample, model=model)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    verdict = page.locator(".verdicts .judge.differs").first.inner_text()
    assert HOSTILE_ANSWER in verdict and "reads the reply differently from strict" in verdict
    assert page.locator("#sample-list img, #sample-list script").count() == 0 and not dialogs
    choose(page, id="", model="", judge="agree")
    assert matches(page) == list(report.browser.index.row_judge).count(1)
    page.goto(url.split("#")[0] + "#judge")
    page.locator("#judge").scroll_into_view_if_needed()
    assert _fits(page)
    _shot(page, "judge-section", url)


def test_new_sections_fit_at_1000_px(browser: Browser, url: str) -> None:
    page = open_samples(browser, url, width=1000)
    for section in ("repeated", "judge", "pairs"):
        box = page.locator(f"#{section}")
        assert box.count() == 1
        right = page.eval_on_selector_all(
            f"#{section} svg.plot, #{section} .scroll",
            "nodes => Math.max(0, ...nodes.map(n => n.getBoundingClientRect().right))",
        )
        assert right <= 1000, section
        if os.environ.get("THINKEVAL_SCREENSHOTS"):
            box.screenshot(path=f"{os.environ['THINKEVAL_SCREENSHOTS']}/repeats-{section}.png")
    assert _fits(page)


def test_export_carries_the_repeat_and_the_judges_reading(browser: Browser, url: str) -> None:
    page = open_samples(browser, url + "#samples?task=aime25&judge=disagree", width=1000)
    with page.expect_download() as info:
        page.locator("#export-jsonl").click()
    records = [json.loads(line) for line in Path(info.value.path()).read_text().splitlines()]
    assert records and {r["task"] for r in records} == {"aime25"}
    assert {r["repeat"] for r in records} <= set(range(K))
    for record in records:
        judged_replies = [reply["judge"] for reply in record["replies"] if reply["judge"]]
        assert len(judged_replies) == 1 and judged_replies[0]["model"] == "judge"
    with page.expect_download() as info:
        page.locator("#export-csv").click()
    header = Path(info.value.path()).read_text().splitlines()[0].split(",")
    assert header[3] == "repeat" and "fixed_judge_answer" in header


def test_a_run_without_judge_verdicts_hides_the_judge_filter(browser: Browser, demo: Path) -> None:
    path = demo / "report.html"  # written by the demo
    page = open_samples(browser, path.as_uri(), width=1000)
    assert page.locator("#repeat-filter").is_visible()
    assert not page.locator("#judge-filter").is_visible()
    assert page.locator("#judge").count() == 0


def test_the_viewer_serves_repeats_and_judge_readings(served: str, report: Report) -> None:
    with urllib.request.urlopen(served + "api/index", timeout=30) as response:
        index = json.load(response)
    assert report.browser is not None
    assert index["row_repeat"] == report.browser.index.row_repeat  # the file holds every row
    assert index["row_judge"] == report.browser.index.row_judge and index["judged"]
    row = index["row_judge"].index(2)
    with urllib.request.urlopen(served + f"api/rows?r={row}", timeout=30) as response:
        replies = json.load(response)["rows"][str(row)]
    assert next(reply["j"] for reply in replies if "j" in reply)[2] == "judge"
