"""The sample browser's code failures: each wrong program's reason (failed_test, crash, timeout,
memory) in the index and as a badge, the stderr/stdout excerpt its verdict quotes shown as text
(a program printing markup stays inert), a filter by reason kept in the URL, in the report file
and under `thinkeval view` (Chromium through Playwright: fails, never skips, without it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from playwright.sync_api import Browser

from browsing import browser, open_samples, viewing
from test_diagnosis_filter import _nothing
from test_report_browser import choose, matches
from test_report_runs import B1, T0, gsm8k_sample, make_run, reply
from thinkeval.records import Attempt, Sample, Usage
from thinkeval.report import build_report, render_html
from thinkeval.report._samples_code import shown_gold
from thinkeval.scoring.scorers import ReplyText
from thinkeval.store.protocol_rules import recorded_verdicts
from thinkeval.tasks import get_task

__all__ = ["browser"]  # the fixture, imported for pytest

HOSTILE = "<script>alert(1)</script><b id=planted>bold</b>"
TESTS = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-3) == -6\n"
# (program, expected reason or None for a pass)
PROGRAMS = {
    "humaneval/double_ok": ("def double(x):\n    return 2 * x\n", None),
    "humaneval/double_same": ("def double(x):\n    return x\n", "failed_test"),
    "humaneval/double_raises": (f"def double(x):\n    raise ValueError({HOSTILE!r})\n", "crash"),
    "humaneval/double_loops": ("def double(x):\n    while True:\n        pass\n", "timeout"),
    "humaneval/double_hungry": ("x = bytearray(2 ** 31)\ndef double(x):\n    return 2 * x\n",
                                "memory"),
}  # fmt: skip
LONG_PRELUDE = "# helpers\n" + "# " + "x" * 2000 + "\n"


def _sample(sample_id: str) -> Sample:
    gold = {"form": "check", "tests": TESTS, "entry_point": "double", "cpu_s": 1, "wall_s": 5}
    if sample_id.endswith("_ok"):
        gold["prelude"] = LONG_PRELUDE  # a gold the index shortens
    prompt = {"role": "user", "content": f"Write double(x) ({sample_id})."}
    return Sample(sample_id, "humaneval", (prompt,), orjson.dumps(gold).decode())


def _attempt(sample: Sample, program: str) -> Attempt:
    content = f"Here it is.\n```python\n{program}```\n"
    spec = get_task("humaneval")
    verdicts = recorded_verdicts(spec, ReplyText(content, None, "stop"), sample.gold)
    return Attempt(
        model="coder", task="humaneval", sample_id=sample.id, phase="fixed", budget=B1,
        max_tokens=B1, content=content, reasoning="Doubling.", finish_reason="stop",
        usage=Usage(prompt_tokens=50, completion_tokens=40), http_status=200,
        started_at=T0, latency_s=1.0, state="finished", gold=sample.gold, verdicts=verdicts,
    )  # fmt: skip


@pytest.fixture(scope="module")
def code_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One model on five made-up code samples, one per outcome, and two GSM8K samples."""
    root = tmp_path_factory.mktemp("code-browser")
    samples = [_sample(sample_id) for sample_id in PROGRAMS]
    gsm8k = [gsm8k_sample(0), gsm8k_sample(1)]
    attempts = [_attempt(s, PROGRAMS[s.id][0]) for s in samples]
    attempts += [reply("coder", gsm8k[0], "fixed", "wrong"), reply("coder", gsm8k[1], "fixed",
                                                                    "correct")]  # fmt: skip
    yield make_run(root / "run", {"humaneval": samples, "gsm8k": gsm8k}, attempts, ["coder"])


def test_the_index_holds_each_wrong_program_s_reason_as_its_reply_view(code_run: Path) -> None:
    from thinkeval.report._collect import collect
    from thinkeval.report._embed import EMBED_LIMITS
    from thinkeval.report._samples import Catalog

    with collect([code_run]) as data:
        catalog = Catalog(data)
        index = catalog.index()
        reasons = index["code_reasons"]
        assert reasons == ["failed_test", "crash", "timeout", "memory"]
        found = {}
        for row in range(len(catalog)):
            (view,) = catalog.reply_views(row, EMBED_LIMITS)
            code = int(index["row_fixed_code"][row])
            assert view.code_reason == (reasons[code] if code >= 0 else None), row
            assert int(index["row_retry_code"][row]) == -1  # nothing was retried
            sample_id = index["question_id"][int(index["row_question"][row])]
            found[sample_id] = (view.code_reason, view.code_detail)
    for sample_id, (_, reason) in PROGRAMS.items():
        assert found[sample_id][0] == reason, (sample_id, found[sample_id])
    assert HOSTILE in (found["humaneval/double_raises"][1] or "")  # the stderr excerpt
    assert found["gsm8k/0"] == (None, None)  # a wrong number is no code failure
    # The long gold is shortened in the index (the samples file keeps it whole).
    golds = dict(zip(index["question_id"], index["question_gold"], strict=True))
    assert len(golds["humaneval/double_ok"]) < 500 and "characters" in golds["humaneval/double_ok"]
    assert golds["humaneval/double_same"] == _sample("humaneval/double_same").gold


def test_a_run_without_code_tasks_offers_no_code_filter(tmp_path: Path) -> None:
    run = make_run(tmp_path / "plain", {"gsm8k": [gsm8k_sample(0)]},
                   [reply("m", gsm8k_sample(0), "fixed", "wrong")], ["m"])  # fmt: skip
    report = build_report([run], resamples=100)
    assert report.browser is not None and report.browser.index.code_reasons == []
    assert report.browser.index.row_fixed_code == [-1]
    assert shown_gold("18") == "18"


@pytest.mark.parametrize("where", ["file", "served"])
def test_badges_excerpts_and_the_filter_by_reason(
    browser: Browser, code_run: Path, tmp_path: Path, where: str
) -> None:
    report = build_report([code_run], resamples=100)
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    with viewing(code_run) if where == "served" else _nothing(page_file.as_uri()) as url:
        page = open_samples(browser, url)
        assert page.locator("#code-filter").is_visible()
        options = page.locator("#f-code option").all_inner_texts()
        assert options == ["any", "failed_test", "crash", "timeout", "memory"]
        assert matches(page) == 7
        for reason in ("failed_test", "crash", "timeout", "memory"):
            assert choose(page, code=reason).startswith("1 of 7")
            card = page.locator("#sample-list article")
            assert card.count() == 1
            assert card.locator(f".badge.code-{reason}").first.inner_text() in (
                f"code (fixed): {reason}",
                f"code: {reason}",
            )
            assert f"code={reason}" in page.url  # the view lives in the URL
        choose(page, code="crash")
        detail = page.locator("#sample-list pre.code-detail")
        assert detail.count() == 1 and HOSTILE in detail.inner_text()  # shown as text
        assert page.locator("#planted").count() == 0  # never as markup
        assert page.locator("#sample-list pre.code-detail script").count() == 0
        # A link to the filtered view opens it again.
        again = open_samples(browser, page.url)
        assert matches(again) == 1 and again.locator("#f-code").input_value() == "crash"
        choose(page, code="")
        assert matches(page) == 7
