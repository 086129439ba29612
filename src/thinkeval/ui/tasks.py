"""How `thinkeval tasks` shows the task list and one sample's messages."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.ops.tasks import ShownSample, TaskInfo


def render_tasks(tasks: list[TaskInfo], console: Console) -> None:
    table = Table(title="tasks", title_justify="left")
    for column in ("name", "suite", "samples", "answer", "budgets", "repeats", "description"):
        table.add_column(column, justify="right" if column in ("samples", "repeats") else "left")
    for task in tasks:
        table.add_row(
            task.name,
            task.suite,
            "?" if task.samples is None else str(task.samples),
            task.answer,
            f"{task.budgets[0]}→{task.budgets[1]}",
            str(task.repeats),
            escape(task.description),
        )
    console.print(table)
    console.print(
        "A config without `tasks:` runs the `default` suite. "
        "`thinkeval tasks show NAME --sample N` prints what a sample sends."
    )


def render_sample(shown: ShownSample, console: Console) -> None:
    spec, sample = shown.spec, shown.sample
    console.print(
        f"[bold]{escape(spec.name)}[/] sample {shown.index}: id {escape(sample.id)}"
        + (f", subset {escape(sample.subset)}" if sample.subset else "")
    )
    console.print(f"prompt: {escape(spec.prompt_source or 'task file')}", soft_wrap=True)
    for number, message in enumerate(sample.messages, start=1):
        console.rule(f"message {number}: {escape(message['role'])}", align="left")
        console.print(message["content"], markup=False, highlight=False, soft_wrap=True)
    if sample.tools:  # a tool-calling task's functions, sent as `tools`
        console.rule(f"tools: {len(sample.tools)}", align="left")
        text = json.dumps(list(sample.tools), ensure_ascii=False, indent=2)
        console.print(text, markup=False, highlight=False, soft_wrap=True)
    console.rule(align="left")
    console.print(f"gold: {escape(sample.gold)}", soft_wrap=True)
    console.print(
        f"answer kind: {spec.answer.name}; budgets {spec.budgets[0]}→{spec.budgets[1]}; "
        f"repeats {spec.repeats}; sampling {escape(json.dumps(shown.generation))} "
        "(a config may override each)"
    )


def sample_json(shown: ShownSample) -> str:
    """The sample as JSON: what scripts compare."""
    sample = shown.sample
    return json.dumps(
        {
            "task": shown.spec.name,
            "position": shown.index,
            "id": sample.id,
            "subset": sample.subset,
            "messages": list(sample.messages),
            **({"tools": list(sample.tools)} if sample.tools else {}),
            "gold": sample.gold,
            "answer_kind": shown.spec.answer.name,
            "budgets": list(shown.spec.budgets),
            "repeats": shown.spec.repeats,
            "generation": shown.generation,
        },
        ensure_ascii=False,
        indent=2,
    )
