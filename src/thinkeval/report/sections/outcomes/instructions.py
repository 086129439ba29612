"""The report's IFEval table: prompt- and instruction-level accuracy, strict and loose, per
model, task and phase, counted from the journal as `summary.json`'s `instructions` block."""

from __future__ import annotations

from thinkeval.report._cells import Collection
from thinkeval.report._format import percent
from thinkeval.report._frozen import Frozen
from thinkeval.results.instructions import InstructionsPhase, InstructionTally
from thinkeval.results.summary import tally

HEADERS = ("model", "phase", "prompt strict", "instruction strict", "prompt loose",
           "instruction loose", "prompts", "instructions")  # fmt: skip


class InstructionsRow(Frozen, frozen=True):
    model: str
    task: str
    prompts: int
    instructions: int
    fixed: InstructionsPhase
    adaptive: InstructionsPhase


def instruction_rows(data: Collection) -> list[InstructionsRow]:
    """A row per model and task whose answer kind is `instructions` (IFEval)."""
    rows = []
    for run in data.runs:
        tasks = [
            t.name
            for t in run.record.tasks
            if t.name in run.tasks and (t.scoring or "").startswith("instructions-")
        ]
        if not tasks:
            continue
        observer = InstructionTally(set(tasks))
        tally(run.path, run.record, list(run.models), tasks, on_question=observer)
        for model in run.models:
            for task in tasks:
                block = observer.block(model, task)
                if block is None:
                    continue
                row = InstructionsRow(model=model, task=task, prompts=block.prompts,
                                      instructions=block.instructions, fixed=block.fixed,
                                      adaptive=block.adaptive)  # fmt: skip
                rows.append(row)
    return rows


def table_rows(rows: list[InstructionsRow], task: str) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for row in rows:
        if row.task != task:
            continue
        for phase, numbers in (("fixed", row.fixed), ("adaptive", row.adaptive)):
            out.append((row.model, phase, percent(numbers.prompt_level_strict),
                        percent(numbers.inst_level_strict), percent(numbers.prompt_level_loose),
                        percent(numbers.inst_level_loose), str(row.prompts),
                        str(row.instructions)))  # fmt: skip
    return out
