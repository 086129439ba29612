"""What a `decide:` run says in its report and in `thinkeval compare`: where each task stopped,
why, the sequential verdict per candidate, and the server tokens against a full run's."""

from __future__ import annotations

from thinkeval.report._cells import Collection
from thinkeval.results.sequential_run import DecideRecord, TaskDecision, decided, is_decide_run

METHOD = "betting confidence sequence (Waudby-Smith & Ramdas 2023), anytime-valid"


def _tokens(count: float) -> str:
    return f"{count / 1e6:.2f}M" if count >= 1e5 else f"{count:,.0f}"


def task_line(task: TaskDecision) -> str:
    """`gsm8k: stopped early at 500 of 1319 questions (5 looks), settled; server tokens ...`."""
    looks = f"{len(task.looks)} look{'s' if len(task.looks) != 1 else ''}"
    if task.early:
        where = f"stopped early at {task.asked} of {task.size} questions ({looks}), settled"
    elif task.state == "settled":
        where = f"settled at the last look, all {task.size} questions asked ({looks})"
    elif task.state == "not settled":
        where = f"not settled: all {task.size} questions asked ({looks})"
    else:
        where = f"still asking: {task.asked} of {task.size} questions dealt ({looks} so far)"
    line = f"{task.task}: {where}; server tokens {_tokens(task.tokens)}"
    if task.asked and task.asked < task.size:
        full = task.tokens * task.size / task.asked
        line += f", {task.tokens / full:.0%} of a full run's {_tokens(full)} (extrapolated)"
    return line


def verdict_lines(task: TaskDecision, alpha: float) -> list[str]:
    """One line per candidate: the decision, Δ and the confidence sequence at the stop."""
    confidence = f"{1 - 2 * alpha:.0%}"
    return [
        f"{v.candidate} on {task.task}: {v.decision} at ±{task.margin * 100:.2f} pp; "
        f"Δ {v.estimate * 100:+.2f} pp [{confidence} CS {v.low * 100:+.2f}, {v.high * 100:+.2f}]"
        f" over {v.pairs} pairs"
        for v in task.verdicts
    ]


def decide_lines(record: DecideRecord) -> list[str]:
    """The whole sequential comparison, as `thinkeval compare RUN` prints it."""
    lines = [
        f"Sequential comparison with {record.baseline} (decide: goal {record.goal}, "
        f"α {record.alpha:g} per one-sided test, seed {record.seed}, batch {record.batch}); "
        f"{METHOD}. Each task is decided on its own."
    ]
    for task in record.tasks:
        lines.append(f"- {task_line(task)}")
        lines += [f"  - {line}" for line in verdict_lines(task, record.alpha)]
    return lines


def decide_notes(data: Collection) -> list[str]:
    """The report's notes for each `decide:` run of the collection."""
    notes = []
    for run in data.runs:
        if not is_decide_run(run.path):
            continue
        record = decided(run.path, [])
        notes.append(f"decide: {decide_lines(record)[0]}")
        for task in record.tasks:
            notes.append(f"decide: {task_line(task)}")
            notes += [f"decide: {line}" for line in verdict_lines(task, record.alpha)]
        notes.append(
            "decide: the run chose when to stop from these answers, so the pairwise intervals "
            "below are descriptive only; the verdicts are the sequential ones above"
        )
    return notes


def is_decided(data: Collection) -> bool:
    """Whether a run of the collection is a `decide:` run: its report shows no fixed-n
    comparison (the sample stopped when the sequential rule said so)."""
    return any(is_decide_run(run.path) for run in data.runs)
