"""Report sections are plug-ins: one module each, found and ordered by one registry.

The built-in sections come out in the report's reading order; a new section is one
`ReportSection` (here a section of reply lengths, computed from the read model's columns),
and it shows in Markdown, in HTML with its anchor, and in report.json under its key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import msgspec
import numpy as np
import pytest

import thinkeval.report.sections as section_plugins
from test_report_runs import gsm8k_sample, make_run, reply
from thinkeval.report import build_report, render_html, render_json, render_markdown
from thinkeval.report._format import Block, Section, table
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers

BUILT_IN = (
    "headline", "compare", "repeated", "outcomes", "best", "scorers", "pairs", "curve", "usage",
    "tokens", "reasoning", "replicas", "diagnosis", "context",
)  # fmt: skip


class LengthRow(msgspec.Struct, frozen=True):
    model: str
    task: str
    mean_completion: float


def _lengths(inputs: SectionInputs) -> list[LengthRow]:
    """Mean completion tokens of the counted fixed replies, from the read model's column."""
    rows = []
    for cell in inputs.data.ordered():
        tokens = cell.fixed.completion[cell.fixed.completion >= 0]
        rows.append(LengthRow(cell.model, cell.task, float(np.mean(tokens))))
    return rows


def _shown(report: Report) -> Section:
    rows = [LengthRow(**row) for row in report.plugins["lengths"]]
    cells = [(r.model, r.task, f"{r.mean_completion:.1f}") for r in rows]
    return Section(
        "lengths",
        "Reply lengths",
        "Mean completion tokens of the fixed replies.",
        [Block(table=table(("model", "task", "mean tokens"), cells, text_columns=2))],
    )


LENGTHS = ReportSection(
    key="lengths", place=95, shown=_shown, data=lambda inputs: msgspec.to_builtins(_lengths(inputs))
)


def _run(tmp_path: Path) -> Path:
    samples = [gsm8k_sample(i) for i in range(3)]
    attempts = [reply("m", s, "fixed", "correct", 100 * (i + 1)) for i, s in enumerate(samples)]
    return make_run(tmp_path / "run", {"gsm8k": samples}, attempts, ["m"])


def test_the_built_in_sections_come_in_reading_order() -> None:
    keys = [section.key for section in section_plugins.registry()]
    assert keys == list(BUILT_IN)
    places = [section.place for section in section_plugins.registry()]
    assert places == sorted(places) and len(set(places)) == len(places)


def test_a_new_section_is_one_plug_in_shown_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path)
    before = render_markdown(build_report([run], resamples=50))
    found = section_plugins.registry()
    plugged = section_plugins.ordered((*found, LENGTHS))
    monkeypatch.setattr(section_plugins, "registry", lambda: plugged)
    report = build_report([run], resamples=50)
    markdown = render_markdown(report)
    assert "Reply lengths" not in before
    # After "Tokens and time" (place 90), numbered in reading order.
    titles = [line for line in markdown.splitlines() if line.startswith("## ")]
    at = next(i for i, t in enumerate(titles) if t.endswith("Reply lengths"))
    assert titles[at - 1].endswith("Tokens and time") and titles[at].startswith(f"## {at + 1}. ")
    assert "| m | gsm8k | 200.0 |" in markdown
    html = render_html(report)
    assert '<section id="lengths"><h2>' in html and ">200.0<" in html
    numbers = json.loads(render_json(report))
    assert numbers["lengths"] == [{"model": "m", "task": "gsm8k", "mean_completion": 200.0}]
    assert "plugins" not in numbers


def test_a_key_or_place_used_twice_and_a_key_the_report_has_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path)
    found = section_plugins.registry()
    with pytest.raises(ValueError, match="share a key: headline"):
        section_plugins.ordered((*found, ReportSection(key="headline", place=5, shown=_shown)))
    with pytest.raises(ValueError, match="share a place: 10"):
        section_plugins.ordered((*found, ReportSection(key="other", place=10, shown=_shown)))
    clash = ReportSection(key="notes", place=5, shown=lambda r: None, data=lambda i: 1)
    plugged = section_plugins.ordered((*found, clash))
    monkeypatch.setattr(section_plugins, "registry", lambda: plugged)
    with pytest.raises(ValueError, match="overwrite the report's 'notes'"):
        render_json(build_report([run], resamples=50))


# report.json's top-level keys (schema version 4, docs/reports.md): the report's shared fields
# and the built-in sections' numbers; `replicas` only when a model has several base URLs.
PUBLISHED_KEYS = (
    "best_of", "breakdown", "budgets", "censoring", "code_failures", "comparison", "complete",
    "context", "curve_budgets", "curves", "diagnosis", "headline", "histograms", "instructions",
    "judge", "models", "notes", "pairs", "reasoning", "repeat_pairs", "repeated", "repeats",
    "resamples", "runs", "schema_version", "scorers", "seed", "simulated", "tasks",
    "thinkeval_version", "tokens", "usage",
)  # fmt: skip


def test_report_json_keeps_its_published_top_level_keys(tmp_path: Path) -> None:
    report = build_report([_run(tmp_path)], resamples=50)
    numbers = json.loads(render_json(report))
    assert tuple(numbers) == PUBLISHED_KEYS  # sorted, and no section key lost or added
    # Each section's numbers are its own: the report object holds none of them itself.
    shared = set(msgspec.structs.asdict(report)) - {"browser", "plugins"}
    assert shared.isdisjoint({"headline", "pairs", "usage", "scorers", "diagnosis"})
    assert shared < set(PUBLISHED_KEYS)


class _Spread(SectionNumbers, frozen=True):
    longest: dict[str, int]
    shortest: dict[str, int]
    why: list[str]  # for the report's Notes only

    unwritten: ClassVar[tuple[str, ...]] = ("why",)


def _spread(inputs: SectionInputs) -> _Spread:
    cells = inputs.data.ordered()
    tokens = {c.task: c.fixed.completion[c.fixed.completion >= 0] for c in cells}
    return _Spread(
        longest={task: int(t.max()) for task, t in tokens.items()},
        shortest={task: int(t.min()) for task, t in tokens.items()},
        why=[
            f"{c.model} on {c.task}: {inputs.counts[(c.model, c.task)].total} samples."
            for c in cells
        ],
    )


def test_section_numbers_struct_writes_each_field_at_the_top_level_and_adds_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path)
    spread: ReportSection[_Spread] = ReportSection(
        key="spread", place=96, shown=lambda r: None, data=_spread, notes=lambda n: n.why
    )
    plugged = section_plugins.ordered((*section_plugins.registry(), spread))
    monkeypatch.setattr(section_plugins, "registry", lambda: plugged)
    report = build_report([run], resamples=50)
    assert spread.numbers(report).longest == {"gsm8k": 300}
    numbers = json.loads(render_json(report))
    assert numbers["longest"] == {"gsm8k": 300} and numbers["shortest"] == {"gsm8k": 100}
    assert "spread" not in numbers and "why" not in numbers
    # Its notes join the report's Notes, after the report's own.
    assert numbers["notes"][-1] == "m on gsm8k: 3 samples."
    assert "- m on gsm8k: 3 samples." in render_markdown(report)
    # A field named like one of the report's keys is refused, as a key is.
    clash = ReportSection(key="clash", place=97, shown=lambda r: None, data=lambda i: _Runs([]))
    monkeypatch.setattr(
        section_plugins, "registry", lambda: section_plugins.ordered((*plugged, clash))
    )
    with pytest.raises(ValueError, match="section 'clash' would overwrite the report's 'runs'"):
        render_json(build_report([run], resamples=50))


class _Runs(SectionNumbers, frozen=True):
    runs: list[int]
