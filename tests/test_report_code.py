"""The report's code table: the wrong programs of a code task counted by reason (failed_test,
crash, timeout, memory) per model, task and phase, in Markdown and HTML, and no such table for a
run without code tasks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.report import build_report, render_html, render_markdown
from thinkeval.report.sections.outcomes import SECTION as OUTCOMES
from thinkeval.report.sections.outcomes.code_failures import HEADERS
from thinkeval.sim.behaviour import answer_key_from_samples
from thinkeval.sim.config import SimConfig
from thinkeval.store.journal import iter_attempts
from thinkeval.tasks import load_samples


def _run(tmp_path: Path, data_dir: Path, tasks: list[dict[str, object]], name: str) -> Path:
    samples = [s for t in tasks for s in load_samples(str(t["name"]), data_dir)]
    server = ThreadedSim(
        SimConfig(port=0, model="coder", seed=7, p_wrong=0.6), answer_key_from_samples(samples)
    ).start()
    try:
        run_dir = tmp_path / name
        model = {"name": "coder", "base_url": server.base_url, "concurrency": 8}
        config = write_config(tmp_path / f"{name}.yaml", {"run": name, "tasks": tasks,
                                                          "models": [model]})  # fmt: skip
        assert main(["run", str(config), "--output", str(run_dir)]) == 0
    finally:
        server.stop()
    return run_dir


def test_wrong_programs_are_counted_by_reason_per_model_task_and_phase(
    tmp_path: Path, data_dir: Path
) -> None:
    tasks: list[dict[str, object]] = [
        {"name": "humaneval", "repeats": 4, "budgets": [8192, 16384]},
        {"name": "gsm8k", "limit": 3},
    ]
    run_dir = _run(tmp_path, data_dir, tasks, "code")
    fixed = [a for a in iter_attempts(run_dir) if a.task == "humaneval" and a.phase == "fixed"]
    assert not [a for a in iter_attempts(run_dir) if a.phase == "retry"]  # adaptive = fixed
    wrong = [a.verdicts["strict"] for a in fixed if a.verdicts["strict"].status == "wrong"]
    expected = Counter((v.rule or "").partition(":")[0] for v in wrong)
    assert wrong and set(expected) <= {"failed_test", "crash", "timeout", "memory"}

    report = build_report([run_dir], seed=1, resamples=200)
    rows = {(r.model, r.task, r.phase): r for r in OUTCOMES.numbers(report).code_failures}
    assert set(rows) == {("coder", "humaneval", "fixed"), ("coder", "humaneval", "adaptive")}
    for row in rows.values():
        assert row.wrong == len(wrong)
        got = {"failed_test": row.failed_test, "crash": row.crash, "timeout": row.timeout,
               "memory": row.memory}  # fmt: skip
        assert got == {reason: expected[reason] for reason in got}

    markdown = render_markdown(report)
    assert markdown.count("Code: why the wrong programs failed") == 1  # humaneval, not gsm8k
    header = "| " + " | ".join(HEADERS) + " |"
    assert header in markdown
    r = rows["coder", "humaneval", "fixed"]
    cells = ["coder", "fixed", r.wrong, r.failed_test, r.crash, r.timeout, r.memory]
    assert "| " + " | ".join(map(str, cells)) + " |" in markdown
    html = render_html(report)
    assert "Code: why the wrong programs failed" in html
    assert all(f"<th>{name}</th>" in html or f">{name}<" in html for name in HEADERS)


def test_a_run_without_code_tasks_has_no_code_table(tmp_path: Path, data_dir: Path) -> None:
    run_dir = _run(tmp_path, data_dir, [{"name": "gsm8k", "limit": 3}], "plain")
    report = build_report([run_dir], seed=1, resamples=200)
    assert OUTCOMES.numbers(report).code_failures == []
    assert "Code: why the wrong programs failed" not in render_markdown(report)
    assert "Code: why the wrong programs failed" not in render_html(report)
