"""MMLU-Pro (12,032 test questions, up to ten options A-J), the official 5-shot CoT prompt."""

from __future__ import annotations

from functools import partial

from thinkeval.scoring.kinds.choice import ChoiceKind
from thinkeval.tasks.mmlu_pro import EXEMPLARS, LETTERS, data_file, five_shot, mmlu_pro_sample
from thinkeval.tasks.spec import THINKING_SAMPLING, TaskSpec

SPEC = TaskSpec(
    name="mmlu_pro",
    version="1",
    description="MMLU-Pro test: 12,032 questions, up to 10 options, official 5-shot CoT",
    # The validation split first: its 70 rows are the exemplars, never asked.
    files=(data_file("validation", EXEMPLARS), data_file("test")),
    sample=partial(mmlu_pro_sample, "mmlu_pro"),
    assemble=five_shot,
    answer=ChoiceKind(LETTERS),
    lenient="last-option-A-J",
    budgets=(16384, 32768),
    generation=THINKING_SAMPLING,
    ids_from_data=True,
    prompt_source="TIGER-AI-Lab MMLU-Pro evaluate_from_api.py: 5-shot CoT, same category",
    reply_tokens=5000,  # Qwen3-class thinking on a ten-option exam question
    sim_flavour="choice",
)
