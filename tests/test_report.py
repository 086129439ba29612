"""The report's numbers, on hand-made runs whose outcomes are known exactly."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from test_report_runs import (
    B1,
    B2,
    T0,
    boolq_sample,
    ceval_sample,
    gsm8k_sample,
    make_run,
    reply,
)
from thinkeval.errors import JournalError, ThinkevalError
from thinkeval.records import Attempt, Usage
from thinkeval.report import build_report, render_html, render_json, render_markdown
from thinkeval.report.sections.best import SECTION as BEST
from thinkeval.report.sections.curve import SECTION as CURVE
from thinkeval.report.sections.headline import SECTION as HEADLINE
from thinkeval.report.sections.outcomes import SECTION as OUTCOMES
from thinkeval.report.sections.pairs import SECTION as PAIRS
from thinkeval.report.sections.scorers import SECTION as SCORERS
from thinkeval.report.sections.usage import SECTION as USAGE
from thinkeval.results.stats import budget_curve, paired_bootstrap, wilson_interval
from thinkeval.results.summary import Counts, TaskResult, summarize
from thinkeval.results.wording import cell, gain
from thinkeval.store.journal import Journal

# Content that the strict scorer calls unfinished (cut off) but in which the lenient scorer,
# like AISBench, finds the right number: 48 + 24 = 72 for gsm8k/0.
CUT_WITH_ANSWER = "In May she sold 48 / 2 = 24 clips, so altogether 48 + 24 = 72 and then"


def counts_of(result: TaskResult) -> Counts:
    """The counts part of a summary row, without its model, task and subjects."""
    fields = msgspec.structs.asdict(result)
    return Counts(**{name: fields[name] for name in Counts.__struct_fields__})


def _row(items: list, **match: str):  # type: ignore[no-untyped-def]
    """The single row of `items` whose attributes equal `match`."""
    found = [i for i in items if all(getattr(i, k) == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


# --- 1. headline ------------------------------------------------------------------------------


def test_headline_cells_1048_fixed_1265_adaptive_of_1319(tmp_path: Path) -> None:
    samples = [gsm8k_sample(i) for i in range(1319)]
    attempts = []
    for i, sample in enumerate(samples):
        if i < 1048:
            attempts.append(reply("qwen3-8b", sample, "fixed", "correct", 900))
        else:
            attempts.append(reply("qwen3-8b", sample, "fixed", "unfinished"))
            retry = "correct" if i < 1048 + 217 else "wrong"
            attempts.append(reply("qwen3-8b", sample, "retry", retry, 5000))
    run = make_run(tmp_path / "gsm8k-full", {"gsm8k": samples}, attempts, ["qwen3-8b"])

    report = build_report([run])

    row = _row(HEADLINE.numbers(report).headline, model="qwen3-8b", task="gsm8k")
    # The gain is 217/1319 = 16.452 pp rounded, not the difference of the rounded cells (16.46).
    assert (row.fixed_cell, row.adaptive_cell, row.gain) == (
        "1048/1319 = 79.45%",
        "1265/1319 = 95.91%",
        "+16.45 pp",
    )
    assert (row.fixed_cell, row.adaptive_cell, row.gain) == (
        cell(1048, 1319),
        cell(1265, 1319),
        gain(1048, 1265, 1319),
    )
    assert "| qwen3-8b | 1048/1319 = 79.45% | 1265/1319 = 95.91% | +16.45 pp |" in (
        render_markdown(report)
    )
    assert "1048/1319 = 79.45%" in render_html(report)
    assert "+16.45 pp" in render_html(report)


# --- 2. outcome breakdown ---------------------------------------------------------------------


def _breakdown_run(tmp_path: Path) -> Path:
    """gsm8k: 10 samples with every fixed outcome; ceval: two subjects."""
    g = [gsm8k_sample(i) for i in range(10)]
    fixed = ["correct"] * 4 + ["wrong", "no_answer", "empty", "unfinished", "unfinished", "error"]
    attempts = [reply("m", s, "fixed", status) for s, status in zip(g, fixed, strict=True)]
    attempts += [
        reply("m", g[6], "retry", "correct", 4000),
        reply("m", g[7], "retry", "wrong", 4100),
        reply("m", g[8], "retry", "unfinished"),
    ]
    c = [ceval_sample("law", i) for i in range(3)]
    c += [ceval_sample("accountant", i) for i in range(2)]
    attempts += [
        reply("m", c[0], "fixed", "correct"),
        reply("m", c[1], "fixed", "unfinished"),
        reply("m", c[1], "retry", "correct", 3000),
        reply("m", c[2], "fixed", "wrong"),
        reply("m", c[3], "fixed", "empty"),  # retry still pending
        # c[4]: nothing recorded yet
    ]
    return make_run(tmp_path / "breakdown", {"gsm8k": g, "ceval": c}, attempts, ["m"])


def test_outcome_breakdown_counts_and_retry_rates(tmp_path: Path) -> None:
    report = build_report([_breakdown_run(tmp_path)])

    whole = _row(OUTCOMES.numbers(report).breakdown, task="gsm8k", subject=None)
    fixed, retry, adaptive = whole.counts.fixed, whole.counts.retry, whole.counts.adaptive
    assert (fixed.correct, fixed.wrong, fixed.no_answer, fixed.empty, fixed.unfinished) == (
        4,
        1,
        1,
        1,
        2,
    )
    assert (fixed.error, fixed.pending, retry.candidates) == (1, 0, 3)
    assert (retry.answered, retry.correct, retry.wrong, retry.unfinished) == (2, 1, 1, 1)
    assert adaptive.correct == 5
    assert whole.rates.recovery == pytest.approx(2 / 3)
    assert whole.rates.new_correct == pytest.approx(1 / 3)
    assert whole.rates.answered_accuracy == pytest.approx(1 / 2)

    law = _row(OUTCOMES.numbers(report).breakdown, task="ceval", subject="law")
    accountant = _row(OUTCOMES.numbers(report).breakdown, task="ceval", subject="accountant")
    assert (law.counts.total, law.counts.fixed.correct, law.counts.adaptive.correct) == (3, 1, 2)
    assert (law.counts.retry.candidates, law.counts.retry.correct) == (1, 1)
    assert (accountant.counts.fixed.empty, accountant.counts.fixed.pending) == (1, 1)
    assert accountant.counts.retry.pending == 1
    assert accountant.rates.answered_accuracy is None  # nothing answered yet: no rate

    markdown = render_markdown(report)
    # candidates, answered, correct, wrong, no_answer, still cut, error, pending, three rates
    assert "| m | 3 | 2 | 1 | 1 | 0 | 1 | 0 | 0 | 66.67% | 33.33% | 50.00% |" in markdown
    # Per subject: the fixed phase's verdicts, then the retry, then the adaptive accuracy.
    assert "| m | law | 3 | 1 (33.33%) | 1 | 0 | 0 | 1 | 0 | 1 | 1 | 1 | 2 (66.67%) |" in markdown
    assert (
        "m on ceval: incomplete, 1 of 5 samples not asked yet; 1 of 2 retries not asked yet."
        in markdown
    )
    assert "m on gsm8k: incomplete, 1 of 10 fixed replies failed (last error: HTTP 503" in (
        markdown
    )
    assert not report.complete


def test_counts_are_the_summary_counts(tmp_path: Path) -> None:
    run = _breakdown_run(tmp_path)
    sample = gsm8k_sample(0)
    # An error then a success, and a later duplicate success: the first success counts.
    extra = [
        reply("m", gsm8k_sample(9), "fixed", "correct"),
        reply("m", sample, "fixed", "wrong"),
    ]
    with Journal(run, "shard-1") as journal:
        for attempt in extra:
            journal.append(attempt)

    report = build_report([run])
    summary = summarize(run)
    for result in summary.results:
        ours = _row(
            OUTCOMES.numbers(report).breakdown, model=result.model, task=result.task, subject=None
        )
        assert ours.counts == counts_of(result)
        for subject, counts in (result.subjects or {}).items():
            mine = _row(OUTCOMES.numbers(report).breakdown, task=result.task, subject=subject)
            assert mine.counts == counts
    assert (
        _row(HEADLINE.numbers(report).headline, task="gsm8k").fixed_correct == 5
    )  # 4 + the recovered error


# --- 3. best-of -------------------------------------------------------------------------------


def test_best_of_lists_ties_together(tmp_path: Path) -> None:
    samples = [boolq_sample(i) for i in range(4)]
    plan = {
        "alpha": (["correct", "correct", "wrong", "unfinished"], ["wrong"]),
        "beta": (["correct", "wrong", "correct", "empty"], ["correct"]),
        "gamma": (["correct", "wrong", "wrong", "unfinished"], ["correct"]),
    }
    attempts = []
    for model, (fixed, retry) in plan.items():
        attempts += [reply(model, s, "fixed", st) for s, st in zip(samples, fixed, strict=True)]
        attempts += [reply(model, samples[3], "retry", retry[0])]
    run = make_run(tmp_path / "three", {"boolq": samples}, attempts, list(plan))

    report = build_report([run], resamples=1000)

    fixed = _row(BEST.numbers(report).best_of, task="boolq", phase="fixed")
    adaptive = _row(BEST.numbers(report).best_of, task="boolq", phase="adaptive")
    assert fixed.models == ["alpha", "beta"]
    assert fixed.cells == ["2/4 = 50.00%", "2/4 = 50.00%"]
    assert adaptive.models == ["beta"]
    assert adaptive.cells == ["3/4 = 75.00%"]
    assert "| boolq | fixed | alpha, beta (tie) | 2/4 = 50.00%; 2/4 = 50.00% |" in (
        render_markdown(report)
    )


# --- 4. strict vs lenient ---------------------------------------------------------------------


def test_lenient_counts_answers_read_out_of_cut_replies(tmp_path: Path) -> None:
    samples = [gsm8k_sample(0), gsm8k_sample(4), gsm8k_sample(8), gsm8k_sample(1)]
    attempts = [
        reply("m", samples[0], "fixed", "unfinished", content=CUT_WITH_ANSWER),
        reply("m", samples[0], "retry", "correct", 3000),
        reply("m", samples[1], "fixed", "unfinished", content=CUT_WITH_ANSWER),
        reply("m", samples[1], "retry", "unfinished", content=CUT_WITH_ANSWER + " so"),
        reply("m", samples[2], "fixed", "unfinished"),  # no number: lenient wrong too
        reply("m", samples[2], "retry", "empty", reasoning="Let me think about the clips."),
        reply("m", samples[3], "fixed", "correct"),
    ]
    run = make_run(tmp_path / "lenient", {"gsm8k": samples}, attempts, ["m"])

    report = build_report([run])

    row = _row(SCORERS.numbers(report).scorers, scorer="lenient", model="m", task="gsm8k")
    assert (row.on_cut_fixed, row.on_cut_adaptive) == (2, 1)
    assert (row.strict_fixed, row.fixed) == (0.25, 0.75)
    assert (row.strict_adaptive, row.adaptive) == (0.5, 0.75)
    summary = summarize(run).results[0]
    assert row.fixed == summary.lenient.fixed_accuracy
    assert row.adaptive == summary.lenient.adaptive_accuracy
    assert row.fixed == summary.scorers["lenient"].fixed_accuracy
    assert summary.scorers["lenient"].adaptive_correct == 3
    assert "| m | gsm8k | 25.00% | 75.00% | +50.00 pp | 2 | 50.00% | 75.00% | +25.00 pp | 1 |" in (
        render_markdown(report)
    )


# --- 5. pairwise ------------------------------------------------------------------------------


def _pair_run(tmp_path: Path, name: str = "pair") -> tuple[Path, list[bool], list[bool]]:
    """Two models on 30 boolq samples with known verdicts; one error and one pending in B.

    Returns the run and both models' verdicts on the 28 samples both answered.
    """
    samples = [boolq_sample(i) for i in range(30)]
    a_correct = [i % 3 != 0 for i in range(30)]  # 20 right
    b_correct = [i % 5 != 0 for i in range(30)]  # 24 right, minus the two below
    attempts = []
    for i, sample in enumerate(samples):
        attempts.append(reply("w8a8", sample, "fixed", "correct" if a_correct[i] else "wrong"))
        if i == 1:
            attempts.append(reply("bf16", sample, "fixed", "error"))
        elif i == 2:
            continue  # pending: nothing recorded
        else:
            attempts.append(reply("bf16", sample, "fixed", "correct" if b_correct[i] else "wrong"))
    answered = [i for i in range(30) if i not in (1, 2)]
    run = make_run(tmp_path / name, {"boolq": samples}, attempts, ["w8a8", "bf16"])
    return run, [a_correct[i] for i in answered], [b_correct[i] for i in answered]


def test_pairwise_numbers_equal_the_stats_functions(tmp_path: Path) -> None:
    """The comparison is on the 28 samples both answered: bf16's error and pending sample are
    left out (not counted as wrong), and the sentence says so."""
    run, a, b = _pair_run(tmp_path)

    report = build_report([run], seed=7, resamples=10_000)

    pair = _row(PAIRS.numbers(report).pairs, task="boolq", phase="fixed")
    expected = paired_bootstrap(a, b, resamples=10_000, seed=7)
    assert (pair.a.model, pair.b.model, pair.asked, pair.n, pair.left_out) == (
        "w8a8",
        "bf16",
        30,
        28,
        2,
    )
    assert (pair.difference, pair.ci_low, pair.ci_high) == (
        expected.difference,
        expected.ci_low,
        expected.ci_high,
    )
    assert (pair.a_only, pair.b_only) == (expected.a_only, expected.b_only)
    discordant = pair.a_only + pair.b_only
    assert pair.p_value == pytest.approx(
        binomtest(min(pair.a_only, pair.b_only), discordant, 0.5).pvalue, rel=1e-12
    )
    assert pair.sentence == (
        f"On the 28 of 30 samples both answered, {expected.sentence('w8a8', 'bf16')} Not "
        "conclusive for all 30: 2 are left out (bf16: 1 error, 1 pending); run the same command "
        "again to re-ask them."
    )
    assert pair.point_weight == pytest.approx(100 / 28)
    assert (pair.a.errors, pair.a.pending, pair.b.errors, pair.b.pending) == (0, 0, 1, 1)
    # The discordant samples behind McNemar's counts, by id.
    ids = [f"boolq/{i}" for i in range(30) if i not in (1, 2)]
    assert pair.a_only_ids == [i for i, x, y in zip(ids, a, b, strict=True) if x and not y]
    assert pair.b_only_ids == [i for i, x, y in zip(ids, a, b, strict=True) if y and not x]
    for side, vector in ((pair.a, a), (pair.b, b)):
        low, high = proportion_confint(sum(vector), 28, alpha=0.05, method="wilson")
        assert (side.wilson_low, side.wilson_high) == pytest.approx((low, high), rel=1e-9)
        assert (side.wilson_low, side.wilson_high) == wilson_interval(sum(vector), 28)
    assert (pair.resamples, pair.seed, pair.on_intersection, pair.note) == (10_000, 7, False, None)
    markdown = render_markdown(report)
    assert f"- {pair.sentence}" in markdown
    assert "| 30 | 28 |" in markdown and "| 3.571 pp | 0 / 2 |" in markdown


# --- 6. budget curve --------------------------------------------------------------------------


def test_budget_curve_from_recorded_completion_tokens(tmp_path: Path) -> None:
    samples = [gsm8k_sample(i) for i in range(5)]
    attempts = [
        reply("m", samples[0], "fixed", "correct", 900),
        reply("m", samples[1], "fixed", "unfinished", 2048),
        reply("m", samples[1], "retry", "correct", 5000),
        reply("m", samples[2], "fixed", "wrong", 300),
        reply("m", samples[3], "fixed", "correct", 2000),
        reply("m", samples[4], "fixed", "empty", 2048),
        reply("m", samples[4], "retry", "unfinished", 8192),
    ]
    run = make_run(tmp_path / "curve", {"gsm8k": samples}, attempts, ["m"])

    report = build_report([run])

    assert CURVE.numbers(report).curve_budgets == {"gsm8k": [512, 1024, 2048, 4096, 8192]}
    curve = _row(CURVE.numbers(report).curves, model="m", task="gsm8k")
    assert curve.correct_at == [0, 1, 2, 2, 3]
    assert curve.total == 5
    assert curve.grid[0] == 0 and curve.grid[-1] == B2
    assert curve.grid_correct == budget_curve(
        [
            [(True, 900)],
            [(False, 2048), (True, 5000)],
            [(False, 300)],
            [(True, 2000)],
            [(False, 2048), (False, 8192)],
        ],
        curve.grid,
    )
    # At B1 and B2 the curve is the headline's fixed and adaptive count.
    head = _row(HEADLINE.numbers(report).headline, task="gsm8k")
    assert (curve.correct_at[2], curve.correct_at[4]) == (head.fixed_correct, head.adaptive_correct)
    assert "| m | 0/5 = 0.00% | 1/5 = 20.00% | 2/5 = 40.00% | 2/5 = 40.00% | 3/5 = 60.00% |" in (
        render_markdown(report)
    )


def test_curve_budgets_add_b1_and_b2_and_stop_at_b2(tmp_path: Path) -> None:
    run = make_run(
        tmp_path / "odd-budgets",
        {"gsm8k": [gsm8k_sample(0)]},
        [reply("m", gsm8k_sample(0), "fixed", "correct", 700)],
        ["m"],
        budgets=(3000, 6000),
    )
    report = build_report([run])
    assert CURVE.numbers(report).curve_budgets == {"gsm8k": [512, 1024, 2048, 3000, 4096, 6000]}
    assert CURVE.numbers(report).curves[0].correct_at == [0, 1, 1, 1, 1, 1]


def test_curve_leaves_out_correct_replies_without_token_counts(tmp_path: Path) -> None:
    sample = gsm8k_sample(0)
    attempt = msgspec.structs.replace(reply("m", sample, "fixed", "correct"), usage=Usage())
    run = make_run(tmp_path / "no-usage", {"gsm8k": [sample]}, [attempt], ["m"])
    report = build_report([run])
    assert CURVE.numbers(report).curves[0].correct_at == [0, 0, 0, 0, 0]
    assert CURVE.numbers(report).curves[0].unmeasured_correct == 1
    assert "1 correct replies have no reported completion tokens" in render_markdown(report)


# --- 7. tokens and time -----------------------------------------------------------------------


def test_token_and_time_statistics(tmp_path: Path) -> None:
    samples = [gsm8k_sample(i) for i in range(4)]
    attempts = [
        reply(
            "m",
            s,
            "fixed",
            "correct",
            tokens,
            started_at=T0 + i,
            latency_s=2.0,
            reasoning_tokens=tokens - 50,
        )
        for i, (s, tokens) in enumerate(zip(samples, (100, 200, 300, 400), strict=True))
    ]
    # A transport error that later succeeded: a request (and time), not a reply.
    attempts.insert(0, reply("m", samples[0], "fixed", "error", started_at=T0, latency_s=0.5))
    run = make_run(tmp_path / "usage", {"gsm8k": samples}, attempts, ["m"])

    report = build_report([run])

    row = _row(USAGE.numbers(report).usage, model="m", task="gsm8k", phase="fixed")
    assert (row.replies, row.requests, row.errors, row.budget) == (4, 5, 1, B1)
    assert row.completion is not None and row.reasoning is not None
    assert (row.completion.mean, row.completion.p50, row.completion.p90) == (250.0, 250.0, 370.0)
    assert (row.reasoning.mean, row.reasoning.p50) == (200.0, 200.0)
    assert row.budget_share == pytest.approx(250 / B1)
    assert row.wall_s == pytest.approx(5.0)  # T0 .. T0 + 3 + 2
    assert row.requests_per_s == pytest.approx(5 / 5.0)
    assert row.output_tokens_per_s == pytest.approx(1000 / 5.0)
    assert row.latency == {"p50": 2.0, "p90": 2.0, "p99": 2.0}
    assert row.ttft is None
    assert _row(USAGE.numbers(report).usage, model="m", task="all", phase="fixed").replies == 4
    assert not [r for r in USAGE.numbers(report).usage if r.phase == "retry"]  # no retry: no row
    markdown = render_markdown(report)
    # Means keep a decimal; percentiles of whole tokens print whole.
    assert "| m | gsm8k | 2048 | 4 | 250.0 | 250 | 370 | 200.0 | 200 | 320 | 12.21% |" in markdown
    assert "not streamed" in markdown


def test_reasoning_tokens_not_reported_and_ttft_when_streamed(tmp_path: Path) -> None:
    samples = [gsm8k_sample(i) for i in range(3)]
    attempts = [
        reply("m", s, "fixed", "correct", 500, ttft_s=0.1 * (i + 1)) for i, s in enumerate(samples)
    ]
    run = make_run(tmp_path / "streamed", {"gsm8k": samples}, attempts, ["m"])
    report = build_report([run])
    row = _row(USAGE.numbers(report).usage, model="m", task="gsm8k", phase="fixed")
    assert row.reasoning is None
    assert row.ttft == pytest.approx({"p50": 0.2, "p90": 0.28, "p99": 0.298})
    assert "| not reported | not reported | not reported |" in render_markdown(report)


# --- 9. combining runs ------------------------------------------------------------------------


def _single_model_run(
    path: Path, model: str, ids: range, budgets: tuple[int, int] = (B1, B2), wrong_every: int = 4
) -> Path:
    samples = [boolq_sample(i) for i in ids]
    attempts = [
        reply(model, s, "fixed", "wrong" if i % wrong_every == 0 else "correct")
        for i, s in zip(ids, samples, strict=True)
    ]
    return make_run(path, {"boolq": samples}, attempts, [model], budgets=budgets)


def test_two_runs_one_model_each_combine(tmp_path: Path) -> None:
    first = _single_model_run(tmp_path / "w8a8", "qwen3-8b-w8a8", range(20))
    second = _single_model_run(tmp_path / "bf16", "qwen3-8b-bf16", range(20), wrong_every=5)

    report = build_report([first, second], resamples=2000)

    assert report.models == ["qwen3-8b-w8a8", "qwen3-8b-bf16"]
    assert [r.name for r in report.runs] == ["w8a8", "bf16"]
    assert report.notes == []
    pair = _row(PAIRS.numbers(report).pairs, task="boolq", phase="fixed")
    assert (pair.n, pair.on_intersection) == (20, False)
    assert (pair.a.correct, pair.b.correct) == (15, 16)


def test_mismatched_budgets_cannot_be_combined(tmp_path: Path) -> None:
    first = _single_model_run(tmp_path / "a", "a", range(5))
    second = _single_model_run(tmp_path / "b", "b", range(5), budgets=(4096, 16384))
    with pytest.raises(ThinkevalError, match=r"budgets \[2048, 8192\].*budgets \[4096, 16384\]"):
        build_report([first, second])


def test_same_model_in_two_runs_names_both(tmp_path: Path) -> None:
    first = _single_model_run(tmp_path / "monday", "qwen3-8b", range(5))
    second = _single_model_run(tmp_path / "tuesday", "qwen3-8b", range(5))
    with pytest.raises(ThinkevalError, match=r"'qwen3-8b' appears in both .*monday and .*tuesday"):
        build_report([first, second])


def test_same_run_twice_and_different_tasks_are_refused(tmp_path: Path) -> None:
    first = _single_model_run(tmp_path / "a", "a", range(5))
    with pytest.raises(ThinkevalError, match="given twice"):
        build_report([first, first])
    other = make_run(
        tmp_path / "g",
        {"gsm8k": [gsm8k_sample(0)]},
        [reply("g", gsm8k_sample(0), "fixed", "correct")],
        ["g"],
    )
    with pytest.raises(ThinkevalError, match="same tasks"):
        build_report([first, other])


def test_differing_sample_sets_are_reported_and_compared_on_the_intersection(
    tmp_path: Path,
) -> None:
    first = _single_model_run(tmp_path / "full", "full-model", range(30))
    second = _single_model_run(tmp_path / "part", "part-model", range(10, 40))

    report = build_report([first, second], resamples=2000)

    assert len(report.notes) == 1
    assert "Sample sets differ on boolq" in report.notes[0]
    assert "30 samples" in report.notes[0] and "20 are common to all" in report.notes[0]
    pair = _row(PAIRS.numbers(report).pairs, task="boolq", phase="fixed")
    assert (pair.n, pair.on_intersection) == (20, True)
    assert pair.note == (
        "compared on the 20 samples both were asked (full-model: 30, part-model: 30)"
    )
    headline = _row(HEADLINE.numbers(report).headline, model="full-model")
    assert headline.total == 30  # each model's own accuracy stays on its own samples
    markdown = render_markdown(report)
    assert "## Notes" in markdown and "Sample sets differ on boolq" in markdown
    assert "(compared on the 20 samples both were asked" in markdown


def test_not_a_run_directory(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(JournalError, match="not a thinkeval run directory"):
        build_report([tmp_path / "empty"])


def test_a_corrupt_journal_line_is_an_error(tmp_path: Path) -> None:
    run = _single_model_run(tmp_path / "bad", "m", range(3))
    with (run / "journal" / "main.jsonl").open("ab") as handle:
        handle.write(b"not json\n")
    with pytest.raises(JournalError, match=r"main\.jsonl:4: not a valid attempt record"):
        build_report([run])


# --- determinism and formats ------------------------------------------------------------------


def test_rendering_twice_gives_identical_bytes(tmp_path: Path) -> None:
    run, _, _ = _pair_run(tmp_path)
    other = _breakdown_run(tmp_path)
    first = build_report([run], resamples=3000)
    second = build_report([run], resamples=3000)
    for render in (render_markdown, render_html, render_json):
        assert render(first).encode() == render(second).encode()
        assert render(first) == render(first)
    assert render_json(build_report([other])) == render_json(build_report([other]))


def test_json_carries_every_number_but_no_sample_texts(tmp_path: Path) -> None:
    run, _, _ = _pair_run(tmp_path)
    report = build_report([run], resamples=2000)
    data = json.loads(render_json(report))
    assert "browser" not in data
    assert data["budgets"] == {"boolq": [B1, B2]}
    assert data["repeats"] == {"boolq": 1}
    assert data["pairs"][0]["sentence"] == PAIRS.numbers(report).pairs[0].sentence
    assert data["pairs"][0]["ci_low"] == PAIRS.numbers(report).pairs[0].ci_low
    assert data["curves"][0]["correct_at"] == CURVE.numbers(report).curves[0].correct_at
    assert data["breakdown"][0]["counts"]["fixed"]["correct"] == 20
    text = render_json(report)
    assert "The passage says" not in text and "Persian language" not in text


def test_attempts_outside_the_selection_are_ignored(tmp_path: Path) -> None:
    sample = boolq_sample(0)
    stray = Attempt(
        model="m",
        task="boolq",
        sample_id="boolq/999",
        phase="fixed",
        budget=B1,
        max_tokens=B1,
        content="A",
        finish_reason="stop",
    )
    other_model = reply("not-in-config", sample, "fixed", "correct")
    run = make_run(
        tmp_path / "stray",
        {"boolq": [sample]},
        [reply("m", sample, "fixed", "wrong"), stray, other_model],
        ["m"],
    )
    report = build_report([run])
    assert report.models == ["m"]
    assert _row(HEADLINE.numbers(report).headline, model="m").fixed_cell == "0/1 = 0.00%"


def test_imported_replies_follow_the_summary_rules(tmp_path: Path) -> None:
    """An AISBench reply without finish_reason and without a final answer counts as unfinished.

    The rule lives in `results.outcome_of`; the report must count exactly what the summary counts
    and show the status that counts in the sample browser.
    """
    samples = [gsm8k_sample(0), gsm8k_sample(1)]
    imported = [
        msgspec.structs.replace(
            reply("m", samples[0], "fixed", "correct"), finish_reason=None, imported_from="aisbench"
        ),
        msgspec.structs.replace(
            reply("m", samples[1], "fixed", "no_answer"),
            finish_reason=None,
            imported_from="aisbench",
        ),
    ]
    run = make_run(tmp_path / "imported", {"gsm8k": samples}, imported, ["m"])

    report = build_report([run])

    counts = _row(OUTCOMES.numbers(report).breakdown, task="gsm8k", subject=None).counts
    assert (counts.fixed.correct, counts.fixed.unfinished, counts.retry.candidates) == (1, 1, 1)
    summary = summarize(run).results[0]
    assert counts == counts_of(summary)
    browser = report.browser
    assert browser is not None
    index = browser.index
    row = next(r for r, q in enumerate(index.row_question) if index.question_id[q] == "gsm8k/1")
    # A retry candidate whose retry has not run yet.
    assert index.statuses[index.row_final[row]] == "pending"
    strict = browser.rows[row][0].strict
    assert strict is not None and strict.status == "unfinished"
    assert strict.rule is not None and strict.rule.endswith("the text reads no_answer")
