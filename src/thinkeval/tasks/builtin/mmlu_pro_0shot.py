"""MMLU-Pro, zero-shot: the official CoT prompt without the five exemplars."""

from __future__ import annotations

from functools import partial

from thinkeval.scoring.kinds.choice import ChoiceKind
from thinkeval.tasks.mmlu_pro import LETTERS, data_file, interleave, mmlu_pro_sample
from thinkeval.tasks.spec import THINKING_SAMPLING, TaskSpec

SPEC = TaskSpec(
    name="mmlu_pro_0shot",
    version="1",
    description="MMLU-Pro test: 12,032 questions, up to 10 options, zero-shot CoT",
    files=(data_file("test"),),
    sample=partial(mmlu_pro_sample, "mmlu_pro_0shot"),
    assemble=interleave,
    answer=ChoiceKind(LETTERS),
    lenient="last-option-A-J",
    budgets=(16384, 32768),
    generation=THINKING_SAMPLING,
    ids_from_data=True,
    prompt_source="TIGER-AI-Lab MMLU-Pro CoT prompt without exemplars (zero-shot)",
    reply_tokens=5000,
    sim_flavour="choice",
)
