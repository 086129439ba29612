"""Section: why replies did not finish, with the still-thinking curves.

Its rows are each model and task's `DiagnosisBlock`: read from `summary.json` when it is newer
than the journal and of the current diagnosis version, else folded in the read model's counting
pass (`_collect`, `_diagnosis.stored_diagnosis`, never calling a model); combined runs add up.
"""

from __future__ import annotations

import thinkeval.report._svg as _svg
from thinkeval.diagnosis.counts import DiagnosisBlock, PhaseDiagnosis
from thinkeval.diagnosis.reply import LABELS, REPLY_LABELS
from thinkeval.report._cells import Collection
from thinkeval.report._format import Block, Section, shown_ids, table
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Report
from thinkeval.report._plots import PHASE_COLORS, figure
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers


class DiagnosisRow(Frozen, frozen=True):
    """One model on one task."""

    model: str
    task: str
    block: DiagnosisBlock


def diagnosis_rows(data: Collection) -> list[DiagnosisRow]:
    """One row per model and task that has replies, in the report's order."""
    merged: dict[tuple[str, str], DiagnosisBlock] = {}
    for run in data.runs:
        for key, block in run.diagnosis.items():
            merged[key] = _add(merged[key], block) if key in merged else block
    return [
        DiagnosisRow(model=mt.model, task=mt.task, block=merged[(mt.model, mt.task)])
        for mt in data.ordered()
        if (mt.model, mt.task) in merged
    ]


def _add(one: DiagnosisBlock, other: DiagnosisBlock) -> DiagnosisBlock:
    phases = dict(one.phases)
    for name, phase in other.phases.items():
        mine = phases.get(name)
        phases[name] = phase if mine is None else _add_phase(mine, phase)
    counts = {f.check: f for f in one.findings}
    for finding in other.findings:
        if finding.check in counts:
            counts[finding.check].count += finding.count
        else:
            counts[finding.check] = finding
    return DiagnosisBlock(phases=phases, findings=list(counts.values()))


def _add_phase(one: PhaseDiagnosis, other: PhaseDiagnosis) -> PhaseDiagnosis:
    def plus(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
        return {k: a.get(k, 0) + b.get(k, 0) for k in {**a, **b}}

    length = max(len(one.reasoning_bins), len(other.reasoning_bins))
    bins = [0] * length
    for source in (one.reasoning_bins, other.reasoning_bins):
        for i, count in enumerate(source):
            bins[i] += count
    return PhaseDiagnosis(
        replies=plus(one.replies, other.replies),
        labels=plus(one.labels, other.labels),
        found=one.found + other.found,
        found_correct=one.found_correct + other.found_correct,
        reasoning_bins=bins,
        still_thinking=one.still_thinking + other.still_thinking,
        examples={
            k: (one.examples.get(k, []) + other.examples.get(k, []))[:5]
            for k in {**one.examples, **other.examples}
        },
    )


def still_thinking(bins: list[int], bin_tokens: int) -> tuple[list[float], list[float]]:
    """(token counts, share of replies whose reasoning is longer): the reasoning-length
    survival curve, one point per bin edge.

    >>> still_thinking([1, 1, 2], 100)
    ([0.0, 100.0, 200.0, 300.0], [1.0, 0.75, 0.5, 0.0])
    """
    total = sum(bins)
    x = [float(i * bin_tokens) for i in range(len(bins) + 1)]
    left, shares = total, [1.0 if total else 0.0]
    for count in bins:
        left -= count
        shares.append(left / total if total else 0.0)
    return x, shares


class DiagnosisNumbers(SectionNumbers, frozen=True):
    diagnosis: list[DiagnosisRow]  # per model and task


def diagnosis_numbers(inputs: SectionInputs) -> DiagnosisNumbers:
    return DiagnosisNumbers(diagnosis_rows(inputs.data))


_INTRO = (
    "Why empty and unfinished replies did not finish, from their stored reasoning and content "
    "(docs/diagnosis.md): loop (the output repeats exactly, as vLLM's repetition detector sees "
    "it: a block of 4-128 tokens three times in a row), hesitation (dense 'wait / hmm / 等等' "
    "turns), found_then_lost (the task's answer kind finds an answer in the reasoning, never "
    "given; 'right' counts those equal to the gold, read and never scored), progressing (none "
    "of these), and for empty replies no_reasoning and swallowed (the reasoning parser kept the "
    "answer). 'repetition' counts replies vLLM ended with finish_reason repetition; they are "
    "retried as unfinished ones are. Findings are template and deployment checks."
)


def diagnosis_section(diagnosis: list[DiagnosisRow]) -> Section | None:
    if not diagnosis:
        return None
    rows = []
    for row in diagnosis:
        for phase, counted in row.block.phases.items():
            replies = [str(counted.replies.get(label, 0)) for label in REPLY_LABELS]
            labels = [str(counted.labels.get(label, 0)) for label in LABELS]
            right = f"{counted.found_correct}/{counted.found}" if counted.found else "0"
            rows.append((row.model, row.task, phase, *replies, *labels, right))
    columns = (
        "model",
        "task",
        "phase",
        *REPLY_LABELS,
        *LABELS,
        "found right",
    )
    blocks = [Block(table=table(columns, rows, text_columns=3))]
    findings = [
        (row.model, row.task, f.detail, str(f.count), shown_ids(f.examples))
        for row in diagnosis
        for f in row.block.findings
    ]
    if findings:
        blocks.append(Block(heading="Template and deployment findings"))
        blocks.append(
            Block(
                table=table(
                    ("model", "task", "finding", "replies", "examples"), findings, text_columns=3
                )
            )
        )
    return Section("diagnosis", "Why replies did not finish", _INTRO, blocks)


def thinking_plots(report: Report, diagnosis: list[DiagnosisRow]) -> str:
    figures = []
    for row in diagnosis:
        b1, b2 = report.budgets[row.task]
        series, grid = [], None
        longest = max((len(p.reasoning_bins) for p in row.block.phases.values()), default=0)
        longest = max(longest, -(-b2 // row.block.bin_tokens))  # the axis reaches B2
        for phase, counted in row.block.phases.items():
            bins = counted.reasoning_bins + [0] * (longest - len(counted.reasoning_bins))
            grid, shares = still_thinking(bins, row.block.bin_tokens)
            series.append(_svg.Series(f"{phase} still thinking", PHASE_COLORS[phase], shares))
        if grid is None:
            continue
        svg = _svg.step_chart(
            f"Share of replies still thinking, {row.model} on {row.task}",
            grid,
            series,
            x_ticks=[round(grid[-1] * i / 4) for i in range(5)],
            x_marks=[(b1, f"B1 {b1}"), (b2, f"B2 {b2}")],
        )
        figures.append(figure(f"{row.model} · {row.task}", svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def shown(report: Report) -> Section | None:
    return diagnosis_section(SECTION.numbers(report).diagnosis)


def plots(report: Report) -> str:
    return thinking_plots(report, SECTION.numbers(report).diagnosis)


SECTION = ReportSection(
    key="diagnosis", place=120, shown=shown, data=diagnosis_numbers, plots=plots
)
