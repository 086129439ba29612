"""Reports of runs with repeats, tasks at different budgets, and judge verdicts.

The numbers are checked against the functions that make summary.json (`repeat_details`,
`compare_models`, `judge_agreement`) on a real run (`thinkeval demo --limit 8`, judged by the
simulator), and exactly on hand-made runs whose outcomes are known.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import msgspec
import pytest

from reported_runs import DEMO_MODELS, HOSTILE_ANSWER, QUESTIONS, K, demo, judged
from test_report_runs import boolq_sample, gsm8k_sample, make_run, reply
from thinkeval.errors import ThinkevalError
from thinkeval.report import build_report, render_html, render_json, render_markdown
from thinkeval.report._model_samples import Judgement
from thinkeval.report.sections.curve import SECTION as CURVE
from thinkeval.report.sections.headline import SECTION as HEADLINE
from thinkeval.report.sections.outcomes import SECTION as OUTCOMES
from thinkeval.report.sections.pairs import SECTION as PAIRS
from thinkeval.report.sections.repeated import SECTION as REPEATED
from thinkeval.report.sections.scorers import SECTION as SCORERS
from thinkeval.report.sections.usage import SECTION as USAGE
from thinkeval.results.judge import judge_agreement, judge_path
from thinkeval.results.questions import compare_models, repeat_details
from thinkeval.results.stats import mcnemar_exact
from thinkeval.results.summary import summarize

__all__ = ["demo", "judged"]  # the fixtures, imported for pytest
A, B = DEMO_MODELS


def _summary(run: Path) -> dict[tuple[str, str], dict]:  # type: ignore[type-arg]
    data = json.loads((run / "summary.json").read_text())
    return {(r["model"], r["task"]): r for r in data["results"]}


# --- repeats ----------------------------------------------------------------------------------


def test_the_demo_writes_its_report_with_the_repeated_task(demo: Path) -> None:
    markdown = (demo / "report.md").read_text()
    # After the headline and the comparison with the baseline the demo's config names.
    assert "## 3. Repeated sampling" in markdown and "avg@4" in markdown
    assert "| model | fixed 16384 | adaptive 16384→32768 | gain |" in markdown
    assert "| model | fixed 2048 | adaptive 2048→8192 | gain |" in markdown
    assert (demo / "report.html").stat().st_size < 7_500_000


def test_repeated_metrics_and_counts_equal_summary_json(demo: Path) -> None:
    report = build_report([demo], resamples=500)
    summary = _summary(demo)
    assert report.repeats == {"boolq": 1, "ceval": 1, "gsm8k": 1, "aime25": K}
    assert report.budgets["aime25"] == (16384, 32768) and report.budgets["gsm8k"] == (2048, 8192)
    assert [(r.model, r.task) for r in REPEATED.numbers(report).repeated] == [
        (A, "aime25"),
        (B, "aime25"),
    ]
    for row in REPEATED.numbers(report).repeated:
        assert msgspec.to_builtins(row.metrics) == summary[row.model, row.task]["repeated"]
        assert row.complete
    for head in HEADLINE.numbers(report).headline:
        found = summary[head.model, head.task]
        assert (head.total, head.fixed_correct, head.adaptive_correct) == (
            found["total"], found["fixed"]["correct"], found["adaptive"]["correct"],
        )  # fmt: skip
        assert (head.questions, head.repeats) == (found["samples"], found["repeats"])
    for row in OUTCOMES.numbers(report).breakdown:
        if row.subject is None:
            found = summary[row.model, row.task]
            assert msgspec.to_builtins(row.counts.fixed) == found["fixed"]
            assert msgspec.to_builtins(row.counts.retry) == found["retry"]
    aime = [h for h in HEADLINE.numbers(report).headline if h.task == "aime25"]
    assert {h.total for h in aime} == {QUESTIONS * K}


def test_models_are_compared_over_questions(demo: Path) -> None:
    report = build_report([demo], resamples=500)
    details = repeat_details(demo)
    assert not [
        p for p in PAIRS.numbers(report).pairs if p.task == "aime25"
    ]  # not as independent samples
    assert [p.phase for p in PAIRS.numbers(report).repeat_pairs] == ["fixed", "adaptive"]
    for row in PAIRS.numbers(report).repeat_pairs:
        adaptive = row.phase == "adaptive"
        versus = compare_models(details[A, "aime25"], details[B, "aime25"], adaptive=adaptive)
        assert (row.difference, row.ci_low, row.ci_high) == (versus.value, versus.low, versus.high)

        a, b = ({q.id: q.solved_adaptive if adaptive else q.solved_fixed
                 for q in details[model, "aime25"].questions} for model in (A, B))  # fmt: skip
        assert row.a_more_ids == [q for q in a if a[q] > b[q]]
        assert row.b_more_ids == [q for q in a if b[q] > a[q]]
        assert row.p_value == mcnemar_exact(row.a_more, row.b_more)
        assert (row.asked, row.n, row.left_out, row.k) == (QUESTIONS, QUESTIONS, 0, K)
        assert row.a.solved == sum(a.values()) and row.a.replies == QUESTIONS * K
        assert row.sentence.startswith("On avg@4, ")
        assert row.significant == ((row.ci_low > 0 or row.ci_high < 0) and row.p_value < 0.05)
    markdown = render_markdown(report)
    assert "### aime25, fixed 16384 (avg@4, compared over questions)" in markdown
    assert PAIRS.numbers(report).repeat_pairs[0].sentence in markdown.replace("\\", "")


def test_the_browser_holds_every_repeat_of_a_question(demo: Path) -> None:
    report = build_report([demo], resamples=500)
    assert report.browser is not None
    index = report.browser.index
    assert index.task_repeats == [1, 1, 1, K] and not index.judged
    details = repeat_details(demo)
    aime = index.tasks.index("aime25")
    seen = {}
    for r, q in enumerate(index.row_question):
        if index.question_task[q] != aime:
            continue
        model, repeat = index.models[index.row_model[r]], index.row_repeat[r]
        seen[model, index.question_id[q], repeat] = (
            index.statuses[index.row_fixed[r]], index.statuses[index.row_final[r]]
        )  # fmt: skip
        views = report.browser.rows[r]
        assert views[0].phase == "fixed" and views[0].judge is None
    expected = {
        (model, row.id, repeat): (outcome.fixed, outcome.adaptive)
        for (model, task), detail in details.items()
        for row in detail.questions
        for repeat, outcome in enumerate(row.repeats)
    }
    assert seen == expected  # every repeat embedded (the run is small), with its outcomes
    # A question's rows: each model's repeats, consecutive, repeat 0 first.
    first = index.row_question.index(index.question_id.index("aime25/0"))
    assert index.row_repeat[first : first + 2 * K] == [0, 1, 2, 3] * 2


def test_curves_usage_and_plots_read_each_task_at_its_budgets(demo: Path) -> None:
    report = build_report([demo], resamples=500)
    assert CURVE.numbers(report).curve_budgets["aime25"] == [
        512,
        1024,
        2048,
        4096,
        8192,
        16384,
        32768,
    ]
    assert CURVE.numbers(report).curve_budgets["gsm8k"] == [512, 1024, 2048, 4096, 8192]
    for curve in CURVE.numbers(report).curves:
        head = next(
            h
            for h in HEADLINE.numbers(report).headline
            if (h.model, h.task) == (curve.model, curve.task)
        )
        b1 = CURVE.numbers(report).curve_budgets[curve.task].index(report.budgets[curve.task][0])
        assert curve.total == head.total
        assert curve.correct_at[b1] == head.fixed_correct
        assert curve.grid[-1] == report.budgets[curve.task][1]
    budgets = {(u.model, u.task, u.phase): u.budget for u in USAGE.numbers(report).usage}
    assert budgets[A, "aime25", "fixed"] == 16384 and budgets[A, "aime25", "retry"] == 32768
    assert budgets[A, "gsm8k", "fixed"] == 2048 and budgets[A, "all", "fixed"] is None
    for histogram in USAGE.numbers(report).histograms:
        assert histogram.edges[-1] == report.budgets[histogram.task][1]
    markdown = render_markdown(report)
    assert "### aime25 (B1 16384, B2 32768)" in markdown
    assert f"| {A} | all | mixed |" in markdown
    assert "Budgets (fixed→retry max_tokens), per task: boolq 2048→8192" in markdown
    page = render_html(report)
    assert f"Questions of aime25 solved 0 to 4 times by {A}" in page  # the solve-rate plot
    assert "B2 32768" in page


def test_reports_with_repeats_are_the_same_bytes_every_time(demo: Path) -> None:
    first, second = build_report([demo], resamples=300), build_report([demo], resamples=300)
    for render in (render_markdown, render_html, render_json):
        assert render(first) == render(second)
    data = json.loads(render_json(first))
    assert data["schema_version"] == 4 and data["repeats"]["aime25"] == K
    assert data["repeated"][0]["metrics"]["k"] == K


# --- exact numbers on a hand-made run with repeats and two budget pairs -------------------------

# gsm8k asked 3 times per question at 2048 → 8192; per model and question, each repeat's fixed
# verdict (">" adds the retry's); boolq once at 1024 → 4096.
PLAN = {
    "a": [["c", "c", "c"], ["c", "w", "u>c"], ["w", "w", "w"], ["c", "ERR", "c"]],
    "b": [["c", "w", "w"], ["c", "c", "c"], ["w", "c", "w"], ["c", "c", "c"]],
}
STATUS = {"c": "correct", "w": "wrong", "u": "unfinished", "ERR": "error"}
BOOLQ_BUDGETS = (1024, 4096)


def _hand_made(folder: Path, name: str = "hand", models: tuple[str, ...] = ("a", "b"),
               boolq: tuple[int, int] = BOOLQ_BUDGETS, repeats: int = 3) -> Path:  # fmt: skip
    samples = {"gsm8k": [gsm8k_sample(i) for i in range(4)],
               "boolq": [boolq_sample(i) for i in range(2)]}  # fmt: skip
    attempts = []
    for model in models:
        for question, plan in zip(samples["gsm8k"], PLAN[model], strict=True):
            for repeat, step in enumerate(plan[:repeats]):
                fixed, _, retry = step.partition(">")
                attempts.append(reply(model, question, "fixed", STATUS[fixed], repeat=repeat))
                if retry:
                    attempts.append(reply(model, question, "retry", STATUS[retry], 5000,
                                          repeat=repeat))  # fmt: skip
        for question in samples["boolq"]:
            attempts.append(reply(model, question, "fixed", "correct", 200, budgets=boolq))
    settings = {"gsm8k": {"repeats": repeats}, "boolq": {"budgets": list(boolq)}}
    return make_run(folder / name, samples, attempts, list(models), tasks=settings)


def test_exact_numbers_with_repeats_an_error_and_two_budget_pairs(tmp_path: Path) -> None:
    run = _hand_made(tmp_path)
    report = build_report([run], resamples=500)
    head = {(h.model, h.task): h for h in HEADLINE.numbers(report).headline}
    assert (head["a", "gsm8k"].fixed_cell, head["a", "gsm8k"].adaptive_cell) == (
        "6/12 = 50.00% (incomplete: 1 error)", "7/12 = 58.33% (incomplete: 1 error)"
    )  # fmt: skip
    assert head["b", "gsm8k"].fixed_cell == "8/12 = 66.67%"
    assert report.budgets == {"gsm8k": (2048, 8192), "boolq": BOOLQ_BUDGETS}
    summary = summarize(run)
    for row in REPEATED.numbers(report).repeated:
        found = next(r for r in summary.results if (r.model, r.task) == (row.model, row.task))
        assert row.metrics == found.repeated
    assert [row.complete for row in REPEATED.numbers(report).repeated] == [False, True]
    fixed = next(p for p in PAIRS.numbers(report).repeat_pairs if p.phase == "fixed")
    # a's q3 has a transport error: left out; on q0-q2 a solved 3, 1, 0 and b 1, 3, 1 of 3.
    assert (fixed.asked, fixed.n, fixed.left_out) == (4, 3, 1)
    assert (fixed.a.errors, fixed.a.pending, fixed.b.errors) == (1, 0, 0)
    assert fixed.a_more_ids == ["gsm8k/0"] and fixed.b_more_ids == ["gsm8k/1", "gsm8k/2"]
    assert fixed.difference == pytest.approx(((3 - 1) + (1 - 3) + (0 - 1)) / 9)
    assert fixed.p_value == 1.0 and not fixed.significant
    assert (fixed.a.solved, fixed.a.replies, fixed.b.solved) == (4, 9, 5)
    assert fixed.sentence.startswith("On the 3 of 4 questions both answered in every repeat: ")
    assert fixed.sentence.endswith(
        "Not conclusive for all 4: 1 are left out (a: 1 error); run the same command again to "
        "re-ask them."
    )
    adaptive = next(p for p in PAIRS.numbers(report).repeat_pairs if p.phase == "adaptive")
    assert adaptive.a.solved == 5  # the retry of q1's third repeat
    markdown = render_markdown(report)
    assert "| model | fixed 1024 | adaptive 1024→4096 | gain |" in markdown
    assert "| model | fixed 2048 | adaptive 2048→8192 | gain |" in markdown
    assert "gsm8k is asked 3 times per question" in markdown
    assert "| a | fixed | 4 | 50.00% [" in markdown
    outcomes = markdown.split("## 3. Outcomes")[1]
    assert "| model | replies | correct |" in outcomes
    assert "| model | samples | correct |" in outcomes
    assert CURVE.numbers(report).curve_budgets == {
        "gsm8k": [512, 1024, 2048, 4096, 8192], "boolq": [512, 1024, 2048, 4096],
    }  # fmt: skip
    assert {
        u.budget for u in USAGE.numbers(report).usage if u.task == "all" and u.phase == "fixed"
    } == {None}


def test_runs_combine_when_each_task_has_the_same_budgets_and_repeats(tmp_path: Path) -> None:
    first = _hand_made(tmp_path, "first", ("a",))
    second = _hand_made(tmp_path, "second", ("b",))
    report = build_report([first, second], resamples=500)
    assert report.models == ["a", "b"] and len(PAIRS.numbers(report).repeat_pairs) == 2
    assert report.budgets == {"gsm8k": (2048, 8192), "boolq": BOOLQ_BUDGETS}
    other_budgets = _hand_made(tmp_path, "other-budgets", ("b",), boolq=(2048, 8192))
    with pytest.raises(ThinkevalError, match=r"boolq at budgets \[1024, 4096\]\) with .*boolq at"):
        build_report([first, other_budgets])
    other_repeats = _hand_made(tmp_path, "other-repeats", ("b",), repeats=2)
    with pytest.raises(ThinkevalError, match="gsm8k asked 3 times per question"):
        build_report([first, other_repeats])


# --- the judge scorer ---------------------------------------------------------------------------


def test_judge_agreement_per_task_equals_the_judges_own(judged: Path, demo: Path) -> None:
    report = build_report([judged], resamples=300)
    agreement = judge_agreement(judged)
    rows = {(r.model, r.task): r for r in SCORERS.numbers(report).judge}
    assert set(rows) == set(agreement)
    assert [r.task for r in SCORERS.numbers(report).judge] == sorted(
        (r.task for r in SCORERS.numbers(report).judge), key=report.tasks.index
    )
    summary = {(r.model, r.task): r for r in summarize(judged).results}
    for key, found in agreement.items():
        row = rows[key]
        assert (row.judged, row.agreed, row.disagreed, row.not_judged) == (
            found.judged, found.agreed, len(found.disagreements), found.not_judged,
        )  # fmt: skip
        assert row.disagreeing_ids == found.disagreeing_ids
        block = summary[key].judge
        assert block is not None and row.agreement == pytest.approx(block.agreement)
        assert row.judge_correct / row.units == pytest.approx(block.adaptive_accuracy)
    assert any(r.disagreed for r in SCORERS.numbers(report).judge) and report.context[0].judges == [
        "judge"
    ]
    markdown = render_markdown(report)
    assert "## 7. Strict vs judge" in markdown
    # Strict numbers are untouched by the judge.
    plain = build_report([demo], resamples=300)
    assert (
        HEADLINE.numbers(report).headline == HEADLINE.numbers(plain).headline
        and REPEATED.numbers(report).repeated == REPEATED.numbers(plain).repeated
    )


def test_the_browser_lists_the_disagreements_with_both_readings(judged: Path) -> None:
    report = build_report([judged], resamples=300)
    assert report.browser is not None
    index = report.browser.index
    assert index.judged
    disagreements = {
        (d.sample_id, d.repeat, d.phase): (model, d)
        for (model, _), found in judge_agreement(judged).items()
        for d in found.disagreements
        if model == A
    }
    marked = set()
    for r, code in enumerate(index.row_judge):
        if index.models[index.row_model[r]] != A:
            continue
        key = (index.question_id[index.row_question[r]], index.row_repeat[r])
        judged_views = [v for v in report.browser.rows[r] if v.judge is not None]
        assert len(judged_views) <= 1  # only a finished reply is judged
        if code == 2:
            marked.add(key)
            (view,) = judged_views
            _, found = disagreements[(*key, view.phase)]
            assert view.judge == Judgement(found.judge_status, found.judge_answer, "judge")
        elif code == 1:
            (view,) = judged_views
            assert view.strict is not None and view.judge is not None
            strict = (view.strict.status, view.strict.answer)
            assert (view.judge.status, view.judge.answer) == strict
        else:
            assert code == -1 and not judged_views  # nothing finished to judge
    assert marked == {key[:2] for key in disagreements}
    page = render_html(report)
    assert 'id="judge-filter"' in page and HOSTILE_ANSWER not in page


def test_replies_not_judged_yet_are_marked(judged: Path, tmp_path: Path) -> None:
    import shutil

    partial = tmp_path / "partial"
    shutil.copytree(judged, partial)
    lines = judge_path(partial).read_text().splitlines(keepends=True)
    judge_path(partial).write_text("".join(lines[: len(lines) // 2]))
    report = build_report([partial], resamples=300)
    assert report.browser is not None
    waiting = sum(r.not_judged for r in SCORERS.numbers(report).judge)
    assert waiting > 0
    assert list(report.browser.index.row_judge).count(0) == waiting
    pending = [v.judge for views in report.browser.rows for v in views
               if v.judge is not None and v.judge.status == "pending"]  # fmt: skip
    assert len(pending) == waiting


def test_a_run_without_judge_verdicts_shows_nothing_of_the_judge(demo: Path) -> None:
    report = build_report([demo], resamples=300)
    assert SCORERS.numbers(report).judge == [] and report.context[0].judges == []
    assert "judge" not in render_markdown(report).lower()
    assert report.browser is not None and not report.browser.index.judged
    assert set(report.browser.index.row_judge) == {-1}
    assert math.isfinite(PAIRS.numbers(report).repeat_pairs[0].difference)
