"""BoolQ (SuperGLUE validation, 3270 yes/no questions on a passage), Yes/No offered as A/B."""

from __future__ import annotations

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.kinds.boolean import BooleanKind
from thinkeval.tasks.prompts import aisbench_prompts, fill, user_message
from thinkeval.tasks.rows import key_field, nonempty_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row, TaskSpec

_PROMPT = "boolq_0shot_str"


def _truth(label: object) -> bool | None:
    # bool before int: True is an int, and bool("false") would be True.
    if isinstance(label, str):
        return {"true": True, "false": False}.get(label)
    if isinstance(label, bool):
        return label
    if isinstance(label, int) and label in (0, 1):
        return label == 1
    return None


def boolq_sample(row: Row) -> Sample:
    """A row `{"question", "passage", "idx", "label"}`; `label` may be the string
    `"true"`/`"false"` (the local file), a JSON boolean, or the hub's integer 1/0. True gives
    gold `A` (Yes), false gives `B` (No)."""
    key = key_field(row, "idx")
    question = nonempty_field(row, "question")
    passage = nonempty_field(row, "passage")
    if "label" not in row.fields:
        raise DatasetError(f"{row.where}: missing field 'label'")
    truth = _truth(row.fields["label"])
    if truth is None:
        raise DatasetError(
            f'{row.where}: unknown label {row.fields["label"]!r}; expected "true" or "false"'
        )
    prompt = aisbench_prompts()[_PROMPT]
    content = fill(prompt["template"], passage=passage, question=question)
    return Sample(
        id=f"boolq/{key}",
        task="boolq",
        messages=(user_message(content),),
        gold=prompt["label_to_gold"]["true" if truth else "false"],
    )


SPEC = TaskSpec(
    name="boolq",
    version="1",
    description="BoolQ (SuperGLUE validation): 3270 yes/no questions about a passage",
    # The SuperGLUE layout (int label 1/0 and idx), not `google/boolq` (bool answer, no idx).
    files=(
        DataFile(
            "boolq/validation.jsonl",
            # `super_glue` moved to `aps/super_glue`, whose repo now holds Parquet files.
            hub=HubSplit(
                "aps/super_glue",
                "boolq",
                "validation",
                revision="3de24cf8022e94f4ee4b9d55a6f539891524d646",
                files=("boolq/validation-00000-of-00001.parquet",),
            ),
        ),
    ),
    sample=boolq_sample,
    answer=BooleanKind(),
    lenient="first-capital",
    ids_from_data=True,
    prompt_source="AISBench SuperGLUE_BoolQ_gen (0-shot, options A. Yes / B. No)",
    aisbench_names=("superglue_boolq", "boolq"),
    suite="default",
    reply_tokens=700,  # Qwen3-class thinking on a yes/no reading question
    sim_flavour="yesno",
)
