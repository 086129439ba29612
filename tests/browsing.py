"""A run made to be browsed, Chromium driven by Playwright, and a `thinkeval view` to open.

The browser tests need Debian's `chromium` (`apt-get install -y chromium`; `.ci/run` installs
it): Playwright drives that binary, never a browser of its own download. Where it is missing the
tests fail and say so; they never skip.

The run, `alpha` and `beta` on 12 GSM8K, 6 BoolQ and 6 C-Eval samples (48 model replies), has
every outcome the browser shows; the expected numbers in the tests are counted from this table.

    gsm8k    0   1   2   3   4   5   6   7     8     9    10  11
    alpha    c   c   c   c   c   c   w   u→c   e→u*  ERR  na  c (content says "ZEBRA")
    beta     c   c   c   w   w   w   c   c     u→c   c    c   w
    boolq    0   1   2   3   4   5
    alpha    c   c   c   c   c   w
    beta     ERR c   c   c   c   c   (boolq/3 is slow: 9.5 s)
    ceval    law/0 law/1 law/2 law/3  accountant/0 accountant/1
    alpha    c     w     c     u→u    c            c
    beta     c     c     w     c      c            c

c correct, w wrong, na no_answer, u unfinished, e empty, → the retry at B2, ERR a transport
error; * a cut reply in which the lenient scorer finds the answer (lenient correct, strict not).
alpha's gsm8k/0 content carries markup and a script, which must stay text; alpha's served card
says it is simulated.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from test_report_runs import B2, boolq_sample, ceval_sample, gsm8k_sample, make_run, reply
from thinkeval.records import Attempt
from thinkeval.store.rundir import write_json

HOSTILE = "Natalia sold 72 clips. </script><script>alert(1)</script> <img src=x onerror=alert(1)>"
CUT_WITH_ANSWER = "In May she sold 48 / 2 = 24 clips, so altogether 48 + 24 = 72 and then"
ROWS = 48

_PLAN = {
    "gsm8k": [
        ("c", "c"), ("c", "c"), ("c", "c"), ("c", "w"), ("c", "w"), ("c", "w"),
        ("w", "c"), ("u>c", "c"), ("e>u*", "u>c"), ("ERR", "c"), ("na", "c"), ("c", "w"),
    ],
    "boolq": [("c", "ERR"), ("c", "c"), ("c", "c"), ("c", "c"), ("c", "c"), ("w", "c")],
    "ceval": [("c", "c"), ("w", "c"), ("c", "w"), ("u>u", "c"), ("c", "c"), ("c", "c")],
}  # fmt: skip
_STATUS = {"c": "correct", "w": "wrong", "na": "no_answer", "u": "unfinished", "e": "empty",
           "ERR": "error"}  # fmt: skip


def _samples() -> dict[str, list]:  # type: ignore[type-arg]
    ceval = [ceval_sample("law", i) for i in range(4)] + [
        ceval_sample("accountant", i) for i in range(2)
    ]
    return {
        "gsm8k": [gsm8k_sample(i) for i in range(12)],
        "boolq": [boolq_sample(i) for i in range(6)],
        "ceval": ceval,
    }


def _replies(model: str, sample, plan: str, index: int) -> list[Attempt]:  # type: ignore[no-untyped-def]
    fixed, _, retry = plan.partition(">")
    tokens = 100 + 10 * index
    content = None
    if model == "alpha" and sample.id == "gsm8k/0":
        content = f"{HOSTILE}\nThe answer is 72"
    if model == "alpha" and sample.id == "gsm8k/11":
        content = "Look both ways at the ZEBRA crossing.\nThe answer is 624"
    latency = 9.5 if (model, sample.id) == ("beta", "boolq/3") else 1.0 + index / 10
    made = [
        reply(
            model,
            sample,
            "fixed",
            _STATUS[fixed],
            None if fixed in "ue" else tokens,
            content=content,
            latency_s=latency,
        )
    ]
    if retry:
        lenient_cut = retry.endswith("*")
        status = _STATUS[retry.rstrip("*")]
        retry_tokens = 5000 if model == "alpha" else 4000
        made.append(
            reply(
                model,
                sample,
                "retry",
                status,
                B2 if status == "unfinished" else retry_tokens,
                content=CUT_WITH_ANSWER if lenient_cut else None,
            )
        )
    return made  # fmt: skip


def browse_run(folder: Path) -> Path:
    """Write the run the docstring describes; alpha's card says it is simulated."""
    samples = _samples()
    attempts = []
    for task, plans in _PLAN.items():
        for index, (sample, pair) in enumerate(zip(samples[task], plans, strict=True)):
            for model, plan in zip(("alpha", "beta"), pair, strict=True):
                attempts += _replies(model, sample, plan, index)
    run = make_run(folder / "browse", samples, attempts, ["alpha", "beta"])
    card = {"id": "alpha", "object": "model", "owned_by": "vllm", "thinkeval_simulated": True}
    write_json(run / "models" / "alpha.json", card)
    write_json(run / "models" / "beta.json", {"id": "beta", "object": "model", "root": "Qwen3"})
    return run


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium under Playwright, for one test module."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail(
            "chromium is not installed: the browser tests drive Debian's chromium through "
            "Playwright; install it with `apt-get install -y chromium` (.ci/run does)",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@contextmanager
def viewing(*run_dirs: Path) -> Iterator[str]:
    """`thinkeval view RUN_DIR ... --port 0` in its own process; yields its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "thinkeval", "view", *map(str, run_dirs), "--port", "0",
         "--resamples", "500"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if "http://" not in line:
            process.kill()
            _, errors = process.communicate(timeout=10)
            raise AssertionError(f"thinkeval view did not start: {line}{errors}")
        yield line.split("thinkeval view: ")[1].split(" ")[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


def file_or_served(request: pytest.FixtureRequest, report_file: Path) -> str:
    """The URL of the page for a test parametrized over "file" (report.html opened from disk)
    and "served" (the module's `served` fixture: `thinkeval view` on the same run)."""
    if request.param == "file":
        return report_file.as_uri()
    return str(request.getfixturevalue("served"))


def open_samples(browser: Browser, url: str, width: int = 1400) -> Page:
    """A new page at `url`, once the sample browser has drawn."""
    page = browser.new_page(viewport={"width": width, "height": 1000}, accept_downloads=True)
    page.goto(url)
    settle(page)
    return page


def count_text(page: Page) -> str:
    return page.locator("#sample-count").inner_text()


def settle(page: Page) -> str:
    """Wait until the list is drawn after a change (the page marks it aria-busy until then);
    returns the count line. Waiting goes through selectors: the page's CSP forbids the string
    evaluation that polling `wait_for_function` needs."""
    page.locator("#sample-list:not([aria-busy])").wait_for(state="attached")
    return count_text(page)


def settle_on(page: Page, count: str | re.Pattern[str]) -> str:
    """`settle` after a link changed the address: the browser commits a new #hash before it
    tells the page, so first wait for the count line the new view shows (else the old list,
    not busy yet, would be read)."""
    page.locator("#sample-count", has_text=count).wait_for()
    return settle(page)


def card_ids(page: Page) -> list[str]:
    """`sample id · model` of each card shown (side-by-side cards: the sample id)."""
    return page.eval_on_selector_all(
        "#sample-list article",
        """cards => cards.map(card => {
            const id = card.querySelector('.title .id').textContent;
            const model = card.querySelector(':scope > .title .model');
            return model ? id + ' · ' + model.textContent : id;
        })""",
    )
