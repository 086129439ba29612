"""A recording scorer plugged in from outside: `first_line` is journalled with every reply,
counted into summary.json, and reported, with no change to the code that runs or reads a run."""

from __future__ import annotations

import doctest
import json
import threading
from pathlib import Path

from conftest import write_config
from test_run import model_entry, summary_of
from thinkeval.cli import main
from thinkeval.report import build_report, render_markdown
from thinkeval.report._collect import collect
from thinkeval.report._samples import Catalog
from thinkeval.report.sections.scorers import SECTION as SCORERS
from thinkeval.report.viewer.export import record
from thinkeval.results.summary import summarize
from thinkeval.scoring import first_line
from thinkeval.scoring.first_line import FIRST_LINE
from thinkeval.scoring.scorers import (
    BUILT_IN,
    ReplyText,
    active_scorers,
    recording_scorers,
    registered,
)
from thinkeval.tasks import get_task
from thinkeval.ui.tables import results_table


def test_first_line_reads_only_the_first_line_of_the_answer() -> None:
    spec = get_task("gsm8k")
    leads = ReplyText("<think>48 + 24</think>\nThe answer is 72.\nAs 48 + 24 = 72.", None, "stop")
    assert FIRST_LINE.score(spec, leads, "72").status == "correct"
    ends = ReplyText("First I add the clips.\nThe answer is 72.", None, "stop")
    assert FIRST_LINE.score(spec, ends, "72").status != "correct"
    cut = ReplyText("The answer is 72 and", None, "length")
    assert FIRST_LINE.score(spec, cut, "72").status == "unfinished"  # strict's reply state


def test_docstring_examples() -> None:
    assert doctest.testmod(first_line).failed == 0


def test_registered_for_a_block_only() -> None:
    names = [scorer.name for scorer in recording_scorers()]
    with registered(FIRST_LINE):
        assert [scorer.name for scorer in recording_scorers()] == [*names, "first_line"]
    assert [scorer.name for scorer in recording_scorers()] == names


def test_a_registered_block_is_scoped_to_its_context_and_restored_on_error() -> None:
    before = active_scorers()
    seen: list[tuple[str, ...]] = []
    try:
        with registered(FIRST_LINE) as chosen:
            assert chosen.names == (*before.names, "first_line")
            # Another thread (another test, a server) does not see this block's scorers.
            other = threading.Thread(target=lambda: seen.append(active_scorers().names))
            other.start()
            other.join()
            raise RuntimeError("inside the block")
    except RuntimeError:
        pass
    assert seen == [before.names]
    assert active_scorers() is before


def test_a_registered_scorer_is_journalled_counted_and_reported(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=5, p_long=0.3, p_wrong=0.2)
    config = write_config(tmp_path / "run.yaml", {
        "run": "first", "tasks": [{"name": "gsm8k", "limit": 40}],
        "models": [model_entry("m", server.base_url)]})  # fmt: skip
    run_dir = tmp_path / "out"
    before = active_scorers()
    with registered(FIRST_LINE):
        assert main(["run", str(config), "--output", str(run_dir)]) == 0
        rows = [json.loads(line) for line in (run_dir / "journal" / "main.jsonl").open()]
        spec = get_task("gsm8k")
        assert all(
            row["verdicts"]["first_line"]["version"] == FIRST_LINE.version_for(spec) for row in rows
        )
        row = summary_of(run_dir)["m", "gsm8k"]
        block = row["scorers"]["first_line"]
        assert set(row["scorers"]) == {"strict", "lenient", "first_line"}
        in_order = summarize(run_dir).results[0].scorers  # the registry's order
        assert list(in_order) == ["strict", "lenient", "first_line"]
        # The summary counts what the journal recorded for the replies that count.
        fixed = [r for r in rows if r["phase"] == "fixed"]
        recorded = sum(r["verdicts"]["first_line"]["status"] == "correct" for r in fixed)
        assert block["fixed_correct"] == recorded
        assert block["fixed_accuracy"] == recorded / row["total"]
        assert row["scorers"]["strict"]["fixed_correct"] == row["fixed"]["correct"]
        assert row["scorers"]["lenient"]["fixed_accuracy"] == row["lenient"]["fixed_accuracy"]
        report = build_report([run_dir])
        (shown,) = [r for r in SCORERS.numbers(report).scorers if r.scorer == "first_line"]
        assert shown.fixed == block["fixed_accuracy"]
        assert "Strict vs first_line" in render_markdown(report)
        # The terminal's end-of-run table has its column, and the sample export its fields.
        headers = [column.header for column in results_table(summarize(run_dir)).columns]
        assert headers[-3:] == ["lenient fixed", "first_line fixed", "errors"]
        with collect([run_dir]) as data:
            exported = record(Catalog(data), 0)
        assert "first_line_adaptive_correct" in exported and "first_line" in exported["replies"][0]
    # Leaving the block leaves the process as it was: running and reading changed nothing.
    assert active_scorers() is before and before == BUILT_IN
    # Without it, the same journal reads as before: strict and lenient, nothing else.
    assert list(summarize(run_dir).results[0].scorers) == ["strict", "lenient"]
    build_report([run_dir])
    assert active_scorers() is before
