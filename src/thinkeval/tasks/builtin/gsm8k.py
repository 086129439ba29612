"""GSM8K (test split, 1319 grade-school maths problems) with AISBench's 4-shot CoT chat prompt."""

from __future__ import annotations

import functools

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.kinds.number import NumberKind
from thinkeval.tasks.prompts import aisbench_prompts, fill, user_message
from thinkeval.tasks.rows import nonempty_field, text_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row, TaskSpec

_PROMPT = "gsm8k_4shot_cot_chat"


@functools.cache
def _exemplars() -> tuple[dict[str, str], ...]:
    # One set of exemplar messages shared by every sample: a 100,000-sample run would otherwise
    # hold 800,000 identical dicts. Messages are never mutated after loading.
    return tuple(dict(message) for message in aisbench_prompts()[_PROMPT]["exemplars"])


def gsm8k_sample(row: Row) -> Sample:
    """A row `{"question", "answer"}`; the id is the row's position in the test split and the
    gold the text after `####` without thousands separators (`"1,200"` becomes `"1200"`)."""
    question = nonempty_field(row, "question")
    _, marker, final = text_field(row, "answer").rpartition("####")
    if not marker:
        raise DatasetError(f"{row.where}: field 'answer' has no '#### <final answer>' line")
    gold = final.strip().replace(",", "")
    if not gold:
        raise DatasetError(f"{row.where}: field 'answer' has nothing after '####'")
    template = aisbench_prompts()[_PROMPT]["question_template"]
    return Sample(
        id=f"gsm8k/{row.index}",
        task="gsm8k",
        messages=(*_exemplars(), user_message(fill(template, question=question))),
        gold=gold,
    )


SPEC = TaskSpec(
    name="gsm8k",
    version="1",
    description="GSM8K test split: 1319 grade-school maths word problems, numeric answers",
    files=(
        DataFile(
            "gsm8k/test.jsonl",
            hub=HubSplit(
                "openai/gsm8k",
                "main",
                "test",
                revision="740312add88f781978c0658806c59bc2815b9866",
                files=("main/test-00000-of-00001.parquet",),
            ),
        ),
    ),
    sample=gsm8k_sample,
    answer=NumberKind(),
    lenient="gsm8k",
    prompt_source="AISBench gsm8k_gen_4_shot_cot_chat_prompt (4-shot chain of thought, chat)",
    aisbench_names=("gsm8k",),
    suite="default",
    reply_tokens=1400,  # Qwen3-class thinking on a grade-school word problem
    sim_flavour="number",
)
