"""The report's header, and its sections as titled tables of text, numbered in reading order.

The sections are plug-ins (`report.sections`: one module each, in one ordered registry); those
with nothing to show (no task asked more than once, no judge verdicts) are left out.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import thinkeval.report.sections as section_plugins
from thinkeval.report._format import Section
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection
from thinkeval.results.wording import missing


def simulated_line(report: Report) -> str | None:
    """The warning that some models are simulated, or None."""
    if not report.simulated:
        return None
    names = ", ".join(report.simulated)
    return (
        f"SIMULATED MODELS: {names} (served by thinkeval sim, not real LLMs): these numbers "
        "demonstrate the protocol, not any model."
    )


def budgets_line(report: Report) -> str:
    """The budgets: one pair for all tasks, or each task's."""
    pairs = set(report.budgets.values())
    if len(pairs) == 1:
        b1, b2 = pairs.pop()
        return f"Budgets: fixed max_tokens {b1}, retry {b2}"
    each = ", ".join(f"{task} {b[0]}→{b[1]}" for task, b in report.budgets.items())
    return f"Budgets (fixed→retry max_tokens), per task: {each}"


def tasks_line(report: Report) -> str:
    """The tasks, with the repeats of those asked more than once per question."""
    named = [
        f"{task} ({k} replies per question)" if k > 1 else task
        for task, k in report.repeats.items()
    ]
    return f"Tasks: {', '.join(named)}"


def header_lines(report: Report) -> list[str]:
    """Which runs, budgets and settings the report covers, one bullet each."""
    lines = []
    simulated = simulated_line(report)
    if simulated:
        lines.append(simulated)
    dates = {c.path: (c.started, c.ended) for c in report.context}
    for run in report.runs:
        if run.complete:
            state = "complete"
        else:
            state = f"INCOMPLETE: {missing(run.errors, run.pending)}, see the notes"
        started, ended = dates.get(run.path, (None, None))
        when = f"; ran {started} to {ended}" if started and ended else ""
        lines.append(f"Run {run.name} ({run.path}, {state}): {', '.join(run.models)}{when}")
    lines.append(budgets_line(report))
    lines.append(tasks_line(report))
    lines.append(
        f"Bootstrap: {report.resamples} resamples, seed {report.seed}; "
        f"thinkeval {report.thinkeval_version}"
    )
    return lines


def shown_sections(report: Report) -> list[tuple[ReportSection[Any], Section]]:
    """Every section that has something to show, numbered in reading order, with the plug-in
    it comes from (`report.sections.registry`)."""
    shown = [
        (plugin, section)
        for plugin in section_plugins.registry()
        for section in plugin.sections(report)
    ]
    return [
        (plugin, dataclasses.replace(section, title=f"{number}. {section.title}"))
        for number, (plugin, section) in enumerate(shown, 1)
    ]


def sections(report: Report) -> list[Section]:
    """Every section of the report that has something to show, numbered in reading order."""
    return [section for _, section in shown_sections(report)]
