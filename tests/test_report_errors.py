"""A run where 21 of 40 fixed replies were HTTP errors: every place that shows it says so.

The case that once misled: the report called such a run complete, showed `15/40 = 37.50%` with
no mark, and its pairwise sentence called a 30-point gap, made of the server's errors, "unlikely
to be noise". Now the report's header and notes, the headline cells, the terminal table,
`thinkeval status`, the summary and `thinkeval verify` all say incomplete, by one rule, and the
pairwise comparison uses only the samples both models answered and says what it left out.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from test_report_runs import gsm8k_sample, make_run, reply
from thinkeval.ops.status import read_status
from thinkeval.ops.verify import verify_run
from thinkeval.report import build_report, render_html, render_markdown
from thinkeval.report.sections.headline import SECTION as HEADLINE
from thinkeval.report.sections.pairs import SECTION as PAIRS
from thinkeval.results.summary import summarize
from thinkeval.ui.status import render as render_status
from thinkeval.ui.tables import results_table

FLAKY, STEADY = "flaky", "steady"


def _error_run(tmp_path: Path, errors: bool = True) -> Path:
    """`flaky`: 21 errors (or, without `errors`, 21 correct), 15 correct, 4 wrong of 40;
    `steady`: 27 correct, 13 wrong."""
    samples = [gsm8k_sample(i) for i in range(40)]
    attempts = []
    for i, sample in enumerate(samples):
        failed = "error" if errors else "correct"
        flaky = failed if i < 21 else "correct" if i < 36 else "wrong"
        attempts.append(reply(FLAKY, sample, "fixed", flaky))
        attempts.append(reply(STEADY, sample, "fixed", "correct" if i < 27 else "wrong"))
    return make_run(tmp_path / "errors", {"gsm8k": samples}, attempts, [FLAKY, STEADY])


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return _error_run(tmp_path)


def _printed(renderable: object, render: object = None) -> str:
    console = Console(record=True, width=200)
    if render is None:
        console.print(renderable)
    else:
        render(renderable, console)  # type: ignore[operator]
    return console.export_text()


def test_header_notes_and_headline_say_incomplete(run: Path) -> None:
    report = build_report([run], resamples=2000)

    assert not report.complete and not report.runs[0].complete
    assert (report.runs[0].errors, report.runs[0].pending) == (21, 0)
    flaky = next(r for r in HEADLINE.numbers(report).headline if r.model == FLAKY)
    steady = next(r for r in HEADLINE.numbers(report).headline if r.model == STEADY)
    assert flaky.fixed_cell == "15/40 = 37.50% (incomplete: 21 errors)"
    assert flaky.adaptive_cell == "15/40 = 37.50% (incomplete: 21 errors)"
    assert flaky.gain == "+0.00 pp (incomplete)"
    assert (steady.fixed_cell, steady.complete) == ("27/40 = 67.50%", True)

    markdown = render_markdown(report)
    assert "INCOMPLETE: 21 errors, see the notes" in markdown
    assert "| flaky | 15/40 = 37.50% (incomplete: 21 errors) |" in markdown
    assert "flaky on gsm8k: incomplete, 21 of 40 fixed replies failed (last error" in markdown
    assert "HTTP 503" in markdown  # the notes show what the errors were
    page = render_html(report)
    assert '<p class="banner incomplete">INCOMPLETE' in page
    assert '<tr class="warn"><td>flaky</td><td class="num">15/40 = 37.50% (incomplete' in page


def test_pairwise_sentence_uses_only_the_samples_both_answered(run: Path) -> None:
    report = build_report([run], resamples=2000)

    pair = next(p for p in PAIRS.numbers(report).pairs if p.phase == "fixed")
    # 19 samples have an answer from both: flaky 15 right, 4 wrong; steady 6 right, 13 wrong.
    assert (pair.asked, pair.n, pair.left_out) == (40, 19, 21)
    assert (pair.a.correct, pair.b.correct) == (15, 6)
    assert (pair.a.errors, pair.b.errors) == (21, 0)
    assert pair.sentence.startswith("On the 19 of 40 samples both answered, flaky is 47.37 pp")
    assert pair.sentence.endswith(
        "Not conclusive for all 40: 21 are left out (flaky: 21 errors); run the same command "
        "again to re-ask them."
    )
    assert "30.00 pp below" not in pair.sentence  # the errors no longer read as a gap
    assert pair.sentence in render_markdown(report)


def test_terminal_table_status_summary_and_verify_agree(run: Path) -> None:
    summary = summarize(run)
    assert not summary.complete
    table = _printed(results_table(summary))
    assert "INCOMPLETE" in table
    assert "15/40 = 37.50% (incomplete: 21 errors)" in table
    assert "errors are requests that failed" in table  # the caption explains the mark

    status = read_status(run)
    assert not status.complete and status.state == "not running"
    assert "incomplete: 21 errors" in _printed(status, render_status)

    assert not verify_run(run).complete
    assert len(verify_run(run).tasks[0].error_only_fixed) == 21


def test_a_run_without_errors_is_complete_everywhere(tmp_path: Path) -> None:
    run = _error_run(tmp_path, errors=False)
    report = build_report([run], resamples=500)
    assert report.complete and all(r.complete for r in HEADLINE.numbers(report).headline)
    assert "incomplete" not in render_markdown(report).lower()
    summary = summarize(run)
    assert summary.complete and "INCOMPLETE" not in _printed(results_table(summary))
    status = read_status(run)
    assert status.complete and "incomplete" not in _printed(status, render_status)
    assert verify_run(run).complete
