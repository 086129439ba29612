"""The read model: a run's journal folded once, in the summary's counting pass, into columns.

Hand-made runs whose counted replies are known exactly: every registered measure's column
holds the counted reply's value (the first success, the retry where one was due), a unit
without a reply holds the measure's `missing`, every request counts in the timing, and the
pass's counts are the summary's. A new measure is one `Measure`; the report reads the columns.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import msgspec
import numpy as np

from test_report_runs import B1, B2, T0, gsm8k_sample, make_run, reply
from thinkeval.records import Attempt
from thinkeval.report import build_report, render_json, render_markdown
from thinkeval.report.sections.diagnosis import SECTION as DIAGNOSIS
from thinkeval.results.columns import CODE, PENDING, ReplyColumns
from thinkeval.results.measures import MEASURES, NONE, Measure, measure
from thinkeval.results.readmodel import TaskColumns, read_model
from thinkeval.results.summary import summarize, write_summary
from thinkeval.store.counted import index_samples
from thinkeval.store.run_record import read_run_record

MODEL = "m"


def _run(tmp_path: Path) -> tuple[Path, dict[int, Attempt], dict[int, Attempt]]:
    """Four gsm8k samples: 0 correct; 1 unfinished, then retried correct; 2 an error, then
    correct (the success counts); 3 nothing yet. Returns the run and the counted attempts by
    unit, per phase."""
    samples = [gsm8k_sample(i) for i in range(4)]
    fixed = {
        0: reply(MODEL, samples[0], "fixed", "correct", 310, reasoning_tokens=90, ttft_s=0.25),
        1: reply(MODEL, samples[1], "fixed", "unfinished", latency_s=3.5),
        2: reply(MODEL, samples[2], "fixed", "correct", 120, started_at=T0 + 9, latency_s=2.0),
    }
    retry = {1: reply(MODEL, samples[1], "retry", "correct", 4000, latency_s=7.0)}
    failed = reply(MODEL, samples[2], "fixed", "error", started_at=T0 + 1)
    attempts = [fixed[0], fixed[1], failed, fixed[2], retry[1]]
    run = make_run(tmp_path / "run", {"gsm8k": samples}, attempts, [MODEL])
    return run, fixed, retry


def _read(
    run: Path, measures: tuple[Measure, ...] = MEASURES
) -> tuple[TaskColumns, dict[tuple[str, str], object]]:
    record = read_run_record(run)
    cell = TaskColumns(
        model=MODEL,
        task="gsm8k",
        fixed=ReplyColumns(4, measures),
        retry=ReplyColumns(4, measures),
    )
    indexes = index_samples(run, {"gsm8k": 1})
    _, counts = read_model(run, record, {(MODEL, "gsm8k"): cell}, indexes, [])
    return cell, dict(counts)


def _equal(column: np.ndarray, unit: int, value: float | None, missing: float) -> bool:
    expected = missing if value is None else value
    found = float(column[unit])
    return math.isnan(found) if math.isnan(expected) else found == expected


def test_every_measure_column_holds_the_counted_reply_and_missing_where_there_is_none(
    tmp_path: Path,
) -> None:
    run, fixed, retry = _run(tmp_path)
    cell, _ = _read(run)
    for each in MEASURES:
        for phase, counted in (("fixed", fixed), ("retry", retry)):
            column = cell.replies(phase).measures[each.name]
            for unit in range(4):
                attempt = counted.get(unit)
                value = None if attempt is None else each.of(attempt)
                assert _equal(column, unit, value, each.missing), (each.name, phase, unit)
    # The numbers the report reads by name are those columns.
    assert cell.fixed.completion.tolist() == [310, B1, 120, NONE]
    assert cell.fixed.reasoning.tolist() == [90, NONE, NONE, NONE]
    assert cell.retry.budget.tolist() == [0, B2, 0, 0]
    assert cell.fixed.latency[2] == 2.0 and math.isnan(cell.fixed.latency[3])
    assert cell.fixed.ttft[0] == 0.25 and math.isnan(cell.fixed.ttft[1])
    # Outcomes and the retry decision: the judge's; the error before sample 2's success is
    # superseded, and sample 3 is pending.
    correct, unfinished = CODE["correct"], CODE["unfinished"]
    assert cell.fixed.status.tolist() == [correct, unfinished, correct, PENDING]
    assert cell.fixed.due.tolist() == [False, True, False, False]
    assert cell.retry.status.tolist() == [PENDING, correct, PENDING, PENDING]


def test_every_request_counts_in_the_timing_and_the_pass_counts_as_the_summary(
    tmp_path: Path,
) -> None:
    run, _, _ = _run(tmp_path)
    cell, counts = _read(run)
    fixed = cell.timing["fixed"]
    assert (fixed.requests, fixed.errors) == (4, 1)  # the superseded error too
    assert cell.timing["retry"].requests == 1
    (result,) = summarize(run).results
    found = counts[(MODEL, "gsm8k")]
    assert found.counts.fixed == result.fixed  # type: ignore[attr-defined]
    assert found.counts.adaptive == result.adaptive  # type: ignore[attr-defined]


def test_a_new_measure_is_one_entry_and_gets_its_column(tmp_path: Path) -> None:
    run, fixed, retry = _run(tmp_path)
    chars = Measure("content_chars", "int32", NONE, lambda a: len(a.content or ""))
    cell, _ = _read(run, (*MEASURES, chars))
    expected = [len(fixed[u].content or "") if u in fixed else NONE for u in range(4)]
    assert cell.fixed.measures["content_chars"].tolist() == expected
    assert cell.retry.measures["content_chars"][1] == len(retry[1].content or "")
    assert measure("latency").dtype == "float64"


def test_a_stale_summary_gives_the_report_a_fresh_one_gives(tmp_path: Path) -> None:
    """The diagnosis of a run whose summary.json is older than its journal is folded in the
    report's own counting pass, in samples order as the summary folds it, so the report is the
    same bytes either way (diagnosis examples included)."""
    samples = [gsm8k_sample(i) for i in range(8)]
    # Written in reverse order: a journal-order reader would list the examples reversed.
    attempts = [
        msgspec.structs.replace(
            reply(MODEL, sample, "fixed", "unfinished", reasoning="wait, " * 50),
            state="unfinished",
        )
        for sample in reversed(samples)
    ]
    run = make_run(tmp_path / "run", {"gsm8k": samples}, attempts, [MODEL])
    write_summary(run)
    fresh = build_report([run], resamples=100)
    rows = DIAGNOSIS.numbers(fresh).diagnosis
    assert rows and rows[0].block.phases["fixed"].examples
    later = os.stat(run / "summary.json").st_mtime + 10
    for journal in (run / "journal").iterdir():
        os.utime(journal, (later, later))
    stale = build_report([run], resamples=100)
    assert render_markdown(stale) == render_markdown(fresh)
    assert render_json(stale) == render_json(fresh)
