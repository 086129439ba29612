"""inspect_ai task for the benchmark: local GSM8K rows, AISBench's 4-shot chat prompt.

bench/run_bench.py (bench/thinkeval_bench/peers/inspect_ai.py) runs it as::

    inspect eval bench/adapters/inspect/gsm8k_bench.py --model openai-api/sim/sim-qwen3 ...

with BENCH_DATA (the GSM8K rows, `{"question", "answer"}` per line) and BENCH_PROMPT (the
exemplars and question template thinkeval packages from AISBench) in the environment. Each sample's
input is the 8 exemplar turns and the test question as the last user message, the same messages
thinkeval sends.
"""

from __future__ import annotations

import json
import os
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
from inspect_ai.scorer import match
from inspect_ai.solver import generate


def _prompt() -> dict[str, Any]:
    with open(os.environ["BENCH_PROMPT"], encoding="utf-8") as handle:
        prompt: dict[str, Any] = json.load(handle)
    return prompt


@task
def gsm8k_bench() -> Task:
    prompt = _prompt()
    exemplars = [
        ChatMessageUser(content=m["content"])
        if m["role"] == "user"
        else ChatMessageAssistant(content=m["content"])
        for m in prompt["exemplars"]
    ]
    template: str = prompt["question_template"]

    def record_to_sample(record: dict[str, Any]) -> Sample:
        question = template.replace("{question}", record["question"])
        gold = record["answer"].rpartition("####")[2].strip().replace(",", "")
        return Sample(input=[*exemplars, ChatMessageUser(content=question)], target=gold)

    return Task(
        dataset=json_dataset(os.environ["BENCH_DATA"], record_to_sample),
        solver=generate(),
        scorer=match(location="end", numeric=True),
    )
