"""HumanEval (164 Python functions to complete, OpenAI), asked as chat models are asked: EvalPlus's
instruction and the function stub in a fenced block; the reply's final Python block is run
against the problem's `check` in the sandbox (`scoring.kinds.code`, docs/code.md)."""

from __future__ import annotations

import orjson

from thinkeval.records import Sample
from thinkeval.scoring.kinds.code import CodeKind
from thinkeval.tasks.prompts import user_message
from thinkeval.tasks.rows import nonempty_field
from thinkeval.tasks.spec import DataFile, Row, TaskSpec

# EvalPlus's chat prompt (`evalplus.provider.utility.make_raw_chat_prompt`), the one its
# HumanEval+ leaderboard sends instruction-tuned models.
INSTRUCTION = (
    "Please provide a self-contained Python script that solves the following problem "
    "in a markdown code block:"
)
CPU_S = 6.0  # CPU seconds per execution: the slowest canonical solution takes ~0.1 s


def humaneval_sample(row: Row) -> Sample:
    """A row `{"task_id", "prompt", "entry_point", "canonical_solution", "test"}`; the id is
    `humaneval/<n>` from `HumanEval/<n>`, the gold the tests (`execution.grading`) with the
    canonical solution as the reference."""
    task_id = nonempty_field(row, "task_id")
    prompt = nonempty_field(row, "prompt")
    gold = {
        "form": "check",
        "prelude": prompt,
        "tests": nonempty_field(row, "test"),
        "entry_point": nonempty_field(row, "entry_point"),
        "reference": prompt + str(row.fields.get("canonical_solution") or ""),
        "cpu_s": CPU_S,
    }
    return Sample(
        id=f"humaneval/{task_id.rpartition('/')[2]}",
        task="humaneval",
        messages=(user_message(f"{INSTRUCTION}\n```\n{prompt.strip()}\n```\n"),),
        gold=orjson.dumps(gold).decode(),
    )


SPEC = TaskSpec(
    name="humaneval",
    version="1",
    description="HumanEval: 164 Python functions to complete, judged by running their tests",
    files=(
        DataFile(
            "humaneval/HumanEval.jsonl.gz",
            format="jsonl",  # gzipped, as openai/human-eval publishes it; no hub copy
        ),
    ),
    sample=humaneval_sample,
    answer=CodeKind(),
    lenient="code",
    budgets=(16384, 32768),
    prompt_source="EvalPlus chat prompt: instruction + the stub in a fenced block",
    aisbench_names=("openai_humaneval", "humaneval"),
    sim_flavour="code",
    suite="code",
    reply_tokens=4000,
)
