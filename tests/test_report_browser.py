"""The sample browser in Chromium, in the self-contained file and as `thinkeval view` serves it.

Each behaviour is checked in both: the same clicks must give the same samples, whether the page
filters its embedded rows or fetches texts, search hits and exports from the server. The
expected numbers come from the table in `browsing.py`.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from browsing import (
    ROWS,
    browse_run,
    browser,
    card_ids,
    file_or_served,
    open_samples,
    settle,
    settle_on,
    viewing,
)
from thinkeval.report import build_report, render_html
from thinkeval.report._collect import collect
from thinkeval.report._samples import Catalog
from thinkeval.report.viewer.export import CSV_COLUMNS, csv_columns, export
from thinkeval.scoring.first_line import FIRST_LINE
from thinkeval.scoring.scorers import registered

__all__ = ["browser"]  # the fixture, imported for pytest


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return browse_run(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="module")
def report_file(run: Path) -> Path:
    path = run / "report.html"
    path.write_text(render_html(build_report([run], resamples=500)), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def served(run: Path) -> Iterator[str]:
    with viewing(run) as url:
        yield url


@pytest.fixture(params=["file", "served"])
def url(request: pytest.FixtureRequest, report_file: Path) -> str:
    return file_or_served(request, report_file)


def choose(page: Page, **values: str) -> str:
    """Set filters (select values or typed text) and return the redrawn count line."""
    for key, value in values.items():
        field = page.locator(f"#f-{key}")
        if field.evaluate("node => node.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    return settle(page)


def matches(page: Page) -> int:
    return int(settle(page).split(" ")[0])


def test_filters_select_the_expected_replies(browser: Browser, url: str) -> None:
    page = open_samples(browser, url)
    assert settle(page).startswith(f"{ROWS} of {ROWS} model replies match")
    assert choose(page, model="beta").startswith(f"24 of {ROWS}")
    assert choose(page, model="", fixed="wrong").startswith("8 of")
    assert choose(page, model="beta").startswith("5 of")
    choose(page, model="", fixed="")
    for filters, expected in (
        ({"finish": "length"}, 4),  # a fixed or retry reply cut by max_tokens
        ({"retried": "yes"}, 4),
        ({"final": "unfinished"}, 2),
        ({"subject": "law"}, 8),
        ({"task": "boolq"}, 12),
        ({"scorer": "only:lenient"}, 1),  # lenient correct, strict not
    ):
        choose(page, **filters)
        assert matches(page) == expected, filters
        choose(page, **dict.fromkeys(filters, ""))
    choose(page, scorer="only:lenient")
    assert card_ids(page) == ["gsm8k/8 · alpha"]


def test_search_is_case_insensitive_full_text_and_the_id_is_exact(
    browser: Browser, url: str
) -> None:
    page = open_samples(browser, url)
    choose(page, q="nATALIA")  # in the question of gsm8k/0, 4 and 8
    assert sorted(card_ids(page)) == sorted(
        f"gsm8k/{i} · {m}" for i in (0, 4, 8) for m in ("alpha", "beta")
    )
    choose(page, q="zebra")  # only in one reply's content
    assert card_ids(page) == ["gsm8k/11 · alpha"]
    assert matches(page) == 1
    choose(page, q="624")  # the gold answer of gsm8k/3, 7 and 11
    assert matches(page) == 6
    choose(page, q="", id="gsm8k/1")  # not gsm8k/10 or gsm8k/11
    assert card_ids(page) == ["gsm8k/1 · alpha", "gsm8k/1 · beta"]


def test_paging_jumps_and_sorting(browser: Browser, url: str) -> None:
    page = open_samples(browser, url)
    choose(page, size="10")
    assert page.locator("#page-count").inner_text() == "of 5"
    page.locator("#f-page").fill("3")
    page.locator("#f-page").dispatch_event("change")
    assert settle(page).endswith("page 3 of 5")
    assert card_ids(page)[0] == "gsm8k/10 · alpha"
    page.locator("#page-next").click()
    assert settle(page).endswith("page 4 of 5") and card_ids(page)[0] == "boolq/3 · alpha"
    choose(page, sort="tokens-desc")  # fixed plus retry tokens; ties in sample order
    assert card_ids(page)[:4] == [
        "gsm8k/8 · alpha",
        "ceval/law/3 · alpha",
        "gsm8k/7 · alpha",
        "gsm8k/8 · beta",
    ]
    choose(page, sort="latency-desc")
    assert card_ids(page)[0] == "boolq/3 · beta"


def test_the_view_lives_in_the_url(browser: Browser, url: str) -> None:
    page = open_samples(browser, url)
    choose(page, model="beta", fixed="wrong", size="10")
    link = page.evaluate("location.hash")
    assert link == "#samples?model=beta&fixed=wrong&size=10"
    shown = card_ids(page)
    again = open_samples(browser, url + link)
    assert settle(again).startswith("5 of")
    assert card_ids(again) == shown
    assert again.locator("#f-model").input_value() == "beta"
    assert again.locator("#f-fixed").input_value() == "wrong"
    # A card's own link opens every model's reply to that sample.
    again.locator("#sample-list article .permalink").first.click()
    again.wait_for_url(lambda address: "id=gsm8k%2F3" in address)
    assert settle_on(again, re.compile("^2 of")).startswith("2 of")
    assert card_ids(again) == ["gsm8k/3 · alpha", "gsm8k/3 · beta"]


def test_discordant_lists_open_side_by_side(browser: Browser, url: str) -> None:
    page = open_samples(browser, url)
    page.locator("#pairs a[href*='task=gsm8k'][href*='phase=fixed'][href*='disc=a']").click()
    page.wait_for_url(lambda address: "disc=a" in address)
    assert settle_on(page, "alpha is right").startswith(
        "4 samples answered by both where alpha is right and beta wrong match"
    )
    assert card_ids(page) == ["gsm8k/3", "gsm8k/4", "gsm8k/5", "gsm8k/11"]
    for card in page.locator("#sample-list article").all():
        assert card.locator(".side").count() == 2
        assert card.locator(".side .model").all_inner_texts() == ["alpha", "beta"]
    page.locator("#pairs a[href*='task=gsm8k'][href*='phase=adaptive'][href*='disc=b']").click()
    page.wait_for_url(lambda address: "disc=b" in address)
    settle_on(page, "beta is right")
    assert card_ids(page) == ["gsm8k/6", "gsm8k/8", "gsm8k/10"]  # beta right, alpha wrong


def test_errors_are_marked_where_they_show(browser: Browser, url: str) -> None:
    page = open_samples(browser, url)
    assert page.locator(".banner.incomplete").inner_text().startswith("INCOMPLETE")
    warned = page.locator("#headline tr.warn").all_inner_texts()
    assert len(warned) == 2 and all("(incomplete: 1 error)" in row for row in warned)
    assert choose(page, fixed="error").startswith(
        "2 of 48 model replies match · 2 replies failed (transport error: not an answer)"
    )
    cards = page.locator("#sample-list article.error")
    assert cards.count() == 2
    assert "Transport error: the request failed" in cards.first.inner_text()


def _export(page: Page, button: str) -> str:
    with page.expect_download() as info:
        page.locator(f"#export-{button}").click()
    path = info.value.path()
    return Path(path).read_text(encoding="utf-8")


def _exports(browser: Browser, url: str) -> tuple[list[dict[str, object]], str]:
    page = open_samples(browser, url)
    choose(page, fixed="wrong")
    lines = _export(page, "jsonl").splitlines()
    return [json.loads(line) for line in lines], _export(page, "csv")


def test_export_writes_the_filtered_replies(browser: Browser, url: str) -> None:
    records, table = _exports(browser, url)
    assert len(records) == 8 and {r["fixed_verdict"] for r in records} == {"wrong"}
    assert {(r["model"], r["sample_id"]) for r in records} == {
        ("alpha", "gsm8k/6"), ("alpha", "boolq/5"), ("alpha", "ceval/law/1"),
        ("beta", "gsm8k/3"), ("beta", "gsm8k/4"), ("beta", "gsm8k/5"), ("beta", "gsm8k/11"),
        ("beta", "ceval/law/2"),
    }  # fmt: skip
    assert all(r["replies"] and r["prompt"] for r in records)
    rows = list(csv.reader(io.StringIO(table)))
    assert rows[0] == list(CSV_COLUMNS) and len(rows) == 9


def test_file_and_viewer_export_the_same(browser: Browser, report_file: Path, served: str) -> None:
    from_file, file_table = _exports(browser, report_file.as_uri())
    from_viewer, viewer_table = _exports(browser, served)
    assert from_file == from_viewer  # short texts: nothing shortened in the file
    assert file_table == viewer_table


def test_the_file_fetches_nothing_and_model_output_stays_text(
    browser: Browser, report_file: Path
) -> None:
    requests: list[str] = []
    console: list[str] = []
    page = browser.new_page()
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda message: console.append(message.text))
    page.on("dialog", lambda dialog: pytest.fail(f"a reply ran script: {dialog.message}"))
    page.goto(report_file.as_uri())
    choose(page, id="gsm8k/0", model="alpha")
    content = page.locator("#sample-list article pre").all_inner_texts()
    assert any("<img src=x onerror=alert(1)>" in text for text in content)
    assert page.locator("#sample-list img, #sample-list script").count() == 0
    assert requests == [report_file.as_uri()]
    assert not any("Content Security Policy" in message for message in console)


def test_simulated_models_are_marked(browser: Browser, url: str) -> None:
    page = open_samples(browser, url)
    assert page.locator(".banner.simulated").inner_text().startswith("SIMULATED MODELS: alpha")
    context = page.locator("#context table").first.inner_text()
    assert "yes (thinkeval sim)" in context


@pytest.mark.parametrize("width", [390, 1000, 1400])
def test_layout_fits_every_width(browser: Browser, url: str, width: int) -> None:
    """No horizontal scrolling, the section links and plots within the page; the screenshots
    go to $THINKEVAL_SCREENSHOTS when set, for a person to look at."""
    page = open_samples(browser, url, width=width)
    fits = "document.documentElement.scrollWidth <= window.innerWidth"
    assert page.evaluate(fits)
    for selector in ("nav a", "svg.plot", ".filters select", "#sample-list article"):
        right = page.eval_on_selector_all(
            selector, "nodes => Math.max(...nodes.map(n => n.getBoundingClientRect().right))"
        )
        assert right <= width, selector
    folder = os.environ.get("THINKEVAL_SCREENSHOTS")
    mode = "file" if url.startswith("file:") else "served"
    if folder:
        page.screenshot(path=f"{folder}/{mode}-{width}-top.png")
    page.locator("#f-view").select_option("pair")
    settle(page)
    assert page.evaluate(fits)
    if folder:
        page.evaluate("document.getElementById('samples').scrollIntoView()")
        page.screenshot(path=f"{folder}/{mode}-{width}-samples.png")


def test_a_link_from_before_scorers_were_keyed_opens_the_same_samples(
    browser: Browser, url: str
) -> None:
    page = open_samples(browser, url + "#samples?lenient=lenient-only")
    assert page.locator("#f-scorer").input_value() == "only:lenient"
    assert card_ids(page) == ["gsm8k/8 · alpha"]


def test_a_registered_scorer_has_its_filter_badges_and_export_fields(
    browser: Browser, run: Path, tmp_path: Path
) -> None:
    with registered(FIRST_LINE):
        path = tmp_path / "first_line.html"
        path.write_text(render_html(build_report([run], resamples=200)), encoding="utf-8")
        with collect([run]) as data:
            catalog = Catalog(data)
            rows = list(range(len(catalog)))
            served = b"".join(export(catalog, rows, "jsonl")).decode()
            table = b"".join(export(catalog, rows, "csv")).decode()
    page = open_samples(browser, path.as_uri())
    options = page.locator("#f-scorer option").all_inner_texts()
    assert "first_line correct, strict not" in options and "lenient correct, strict not" in options
    assert page.locator("#sample-list article .badge", has_text="first_line:").count() > 0
    from_file = [json.loads(line) for line in _export(page, "jsonl").splitlines()]
    assert from_file == [json.loads(line) for line in served.splitlines()]
    assert all(
        isinstance(r["first_line_adaptive_correct"], bool) and "first_line" in r["replies"][0]
        for r in from_file
    )
    # Each reply with a strict verdict has first_line's, the scorer's own reading of it.
    replies = [a for r in from_file for a in r["replies"] if a["strict"]]
    read = [a["first_line"] for a in replies]
    assert replies and all(
        v["status"] in ("empty", "unfinished") or v["rule"].startswith("first line") for v in read
    )
    lines = list(csv.reader(io.StringIO(_export(page, "csv"))))
    assert lines == list(csv.reader(io.StringIO(table)))
    header = lines[0]
    assert header == list(csv_columns(["lenient", "first_line"]))
    assert header[8:10] == ["lenient_adaptive_correct", "first_line_adaptive_correct"]
