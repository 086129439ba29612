"""The report's diagnosis section: why replies did not finish, and what the server did."""

from __future__ import annotations

from thinkeval.diagnosis.reply import LABELS, REPLY_LABELS
from thinkeval.report._diagnosis import DiagnosisRow
from thinkeval.report._format import Block, Section, shown_ids, table
from thinkeval.results.compare_model import Candidate

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


def loop_bullets(candidate: Candidate, baseline: str) -> list[str]:
    """`thinkeval compare`: per task, how many more samples the candidate's replies loop on."""
    bullets = []
    for row in candidate.rows:
        if row.phase != "adaptive" or row.baseline is None or row.candidate is None:
            continue
        mine, theirs = row.candidate.extra, row.baseline.extra
        if "loops" not in mine or "loops" not in theirs:
            continue
        more = mine["loops"] - theirs["loops"]
        fixed = mine.get("loops_fixed", 0) - theirs.get("loops_fixed", 0)
        bullets.append(
            f"{row.task}: {candidate.model} loops on {more:+d} samples against {baseline} "
            f"after the retry ({mine['loops']} vs {theirs['loops']}; fixed phase {fixed:+d}), "
            "counted over every sample of each side (docs/diagnosis.md)."
        )
    return bullets
