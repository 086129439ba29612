"""IFEval: 541 prompts with 1-3 verifiable instructions each (25 kinds), checked by code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.ifeval import check_instruction
from thinkeval.scoring.kinds.instructions import InstructionsKind, instructions_gold
from thinkeval.tasks.prompts import user_message
from thinkeval.tasks.rows import key_field, nonempty_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row, TaskSpec

# google/IFEval's commit pinned by HELM (ifeval_scenario.py) and Aleph Alpha's eval-framework
# (hf-dataset-revisions.json); peers fetch `ifeval_input_data.jsonl` (541 rows) at it.
REVISION = "966cd89545d6b6acfd7638bc708b98261ca58e84"
HUB_FILE = "ifeval_input_data.jsonl"


def _arguments(row: Row, raw: object) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise DatasetError(f"{row.where}: each kwargs entry must be an object, got {raw!r}")
    # The hub's copies fill every unused argument with null: drop them. Sorted, so that the
    # same row gives the same gold whatever order a copy lists the arguments in.
    return {str(k): raw[k] for k in sorted(raw) if raw[k] is not None}


def ifeval_sample(row: Row) -> Sample:
    """A row `{"key", "prompt", "instruction_id_list", "kwargs"}`: the prompt is sent as it is;
    the gold lists the instructions with their arguments (`kinds.instructions`)."""
    key = key_field(row, "key")
    prompt = nonempty_field(row, "prompt")
    ids, kwargs = row.fields.get("instruction_id_list"), row.fields.get("kwargs")
    if not isinstance(ids, list) or not isinstance(kwargs, list) or len(ids) != len(kwargs):
        raise DatasetError(
            f"{row.where}: instruction_id_list and kwargs must be lists of the same length"
        )
    if not ids:
        raise DatasetError(f"{row.where}: no instructions")
    arguments = [_arguments(row, raw) for raw in kwargs]
    for iid, args in zip(ids, arguments, strict=True):
        problem = check_instruction(str(iid), args)
        if problem:
            raise DatasetError(f"{row.where}: {problem}")
    return Sample(
        id=f"ifeval/{key}",
        task="ifeval",
        messages=(user_message(prompt),),
        gold=instructions_gold([str(i) for i in ids], arguments),
        meta={"instructions": len(ids)},
    )


SPEC = TaskSpec(
    name="ifeval",
    version="1",
    description="IFEval: 541 prompts with verifiable instructions, strict and loose",
    files=(
        DataFile(
            "ifeval/input_data.jsonl",
            # The hub copy of the same 541 rows, at the commit HELM and Aleph Alpha's
            # eval-framework pin (docs/tasks.md); its file is named, so a pin is never
            # traded for the unpinned Parquet conversion.
            hub=HubSplit("google/IFEval", None, "train", revision=REVISION, files=(HUB_FILE,)),
        ),
    ),
    sample=ifeval_sample,
    answer=InstructionsKind(),
    lenient="ifeval-loose",
    budgets=(8192, 32768),
    ids_from_data=True,
    prompt_source="the IFEval prompt as written (google-research instruction_following_eval)",
    reply_tokens=3000,  # Qwen3-class thinking, then an essay-length reply
    sim_flavour="instructions",  # replies built to follow the instructions (sim/instructions.py)
)
