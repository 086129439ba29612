"""How `thinkeval judge` shows what it did and where strict and the judge disagree."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.ops.judge import JudgeRun


def render_judge(found: JudgeRun, console: Console, show: int = 10) -> None:
    """Counts of this invocation, the agreement per model and task, some disagreements."""
    console.print(
        f"judge {escape(found.judge_model)}: asked {found.asked} ({found.recorded} recorded, "
        f"{found.failed} failed), {found.already} judged before",
        soft_wrap=True,
    )
    for error in found.errors:
        console.print(f"[yellow]failed:[/] {escape(error)}", soft_wrap=True)
    table = Table(title="strict vs judge on finished replies", title_justify="left")
    for column in ("model", "task"):
        table.add_column(column)
    for column in ("judged", "agree", "disagree", "agreement", "not judged", "strict", "judge"):
        table.add_column(column, justify="right")
    for agreement in found.agreement.values():
        judged = agreement.judged
        share = f"{100 * agreement.agreed / judged:.2f}%" if judged else "-"
        units = agreement.units or 1
        table.add_row(
            escape(agreement.model),
            agreement.task,
            str(judged),
            str(agreement.agreed),
            str(len(agreement.disagreements)),
            share,
            str(agreement.not_judged),
            f"{100 * agreement.strict_correct / units:.2f}%",
            f"{100 * agreement.judge_correct / units:.2f}%"
            + (f" (incomplete: {agreement.not_judged} not judged)" if agreement.not_judged else ""),
        )
    console.print(table)
    console.print(
        "(strict, judge: adaptive accuracy over every recorded (sample, repeat); empty and "
        "cut-off replies are never judged and count as not correct for both; a reply not "
        "judged yet counts as not correct for the judge: run the same command again to ask it)",
        soft_wrap=True,
    )
    for agreement in found.agreement.values():
        for item in agreement.disagreements[:show]:
            console.print(
                f"  {escape(agreement.model)} {escape(item.sample_id)} "
                f"{escape(f'[{item.phase}]')}: strict "
                f"{item.strict_status} {escape(str(item.strict_answer))}, judge "
                f"{item.judge_status} {escape(str(item.judge_answer))}",
                soft_wrap=True,
            )
