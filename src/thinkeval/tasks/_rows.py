"""Pure conversion of one dataset row into a `Sample`, shared by the local and the hub loaders.

Each function takes the row as a mapping plus `where`, a human-readable location such as
`/data/gsm8k/test.jsonl line 3`, which prefixes every `DatasetError` it raises.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.tasks._prompts import aisbench_prompts, fill, user_message

# The order samples are loaded and reported in.
CEVAL_SUBJECTS: tuple[str, ...] = (
    "college_economics",
    "business_administration",
    "accountant",
    "tax_accountant",
    "law",
    "legal_professional",
)
CEVAL_COLUMNS: tuple[str, ...] = ("id", "question", "A", "B", "C", "D", "answer")
CEVAL_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")


def gsm8k_sample(row: Mapping[str, Any], index: int, where: str) -> Sample:
    """A GSM8K row `{"question", "answer"}` as the AISBench 4-shot chain-of-thought chat prompt.

    `index` is the row's 0-based position in the test split, which makes the id. The gold is the
    text after `####`, without thousands separators (`"1,200"` becomes `"1200"`).
    """
    question = _question(row, where)
    solution = _text(row, "answer", where)
    _, marker, final = solution.rpartition("####")
    if not marker:
        raise DatasetError(f"{where}: field 'answer' has no '#### <final answer>' line")
    gold = final.strip().replace(",", "")
    if not gold:
        raise DatasetError(f"{where}: field 'answer' has nothing after '####'")
    prompt = aisbench_prompts()["gsm8k_4shot_cot_chat"]
    question_message = user_message(fill(prompt["question_template"], question=question))
    return Sample(
        id=f"gsm8k/{index}",
        task="gsm8k",
        messages=(*_gsm8k_exemplars(), question_message),
        gold=gold,
    )


@functools.cache
def _gsm8k_exemplars() -> tuple[dict[str, str], ...]:
    # One set of exemplar messages shared by every sample: a 100,000-sample run would otherwise
    # hold 800,000 identical dicts. Messages are never mutated after loading.
    prompt = aisbench_prompts()["gsm8k_4shot_cot_chat"]
    return tuple(dict(message) for message in prompt["exemplars"])


def boolq_sample(row: Mapping[str, Any], where: str) -> Sample:
    """A BoolQ row in the SuperGLUE layout `{"question", "passage", "idx", "label"}`.

    `label` may be the string `"true"`/`"false"` (the local file), a JSON boolean, or the hub's
    integer 1/0; true gives gold `A` (Yes), false gives `B` (No).
    """
    key = _key(row, "idx", where)
    question = _question(row, where)
    passage = _text(row, "passage", where)
    if not passage.strip():
        raise DatasetError(f"{where}: empty passage")
    if "label" not in row:
        raise DatasetError(f"{where}: missing field 'label'")
    truth = _boolq_truth(row["label"])
    if truth is None:
        raise DatasetError(f'{where}: unknown label {row["label"]!r}; expected "true" or "false"')
    prompt = aisbench_prompts()["boolq_0shot_str"]
    gold = prompt["label_to_gold"]["true" if truth else "false"]
    content = fill(prompt["template"], passage=passage, question=question)
    return Sample(id=f"boolq/{key}", task="boolq", messages=(user_message(content),), gold=gold)


def ceval_sample(row: Mapping[str, Any], subject: str, where: str) -> Sample:
    """A C-Eval row `{"id", "question", "A", "B", "C", "D", "answer"}` of one subject.

    The prompt is AISBench's 0-shot chain-of-thought chat prompt; the gold is the answer letter.
    """
    prompt = aisbench_prompts()["ceval_0shot_cot_chat"]
    subject_zh = prompt["subjects_zh"].get(subject)
    if subject_zh is None:
        raise DatasetError(f"{where}: unknown C-Eval subject {subject!r}")
    key = _key(row, "id", where)
    question = _question(row, where)
    options = {letter: _text(row, letter, where) for letter in CEVAL_LETTERS}
    answer = _text(row, "answer", where)
    if answer.strip() not in CEVAL_LETTERS:
        raise DatasetError(f"{where}: answer must be one of A, B, C, D, got {answer!r}")
    content = fill(prompt["template"], subject_zh=subject_zh, question=question, **options)
    return Sample(
        id=f"ceval/{subject}/{key}",
        task="ceval",
        messages=(user_message(content),),
        gold=answer.strip(),
        subset=subject,
        meta={"subject_zh": subject_zh},
    )


def unique_samples(located: Iterable[tuple[str, Sample]]) -> Iterator[Sample]:
    """The samples of `(where, sample)` pairs in order, refusing a repeated id.

    For ids taken from the data (BoolQ's `idx`, C-Eval's `id`); GSM8K's ids are row positions,
    unique by construction, so its samples stream without this check's memory.
    """
    first_seen: dict[str, str] = {}
    for where, sample in located:
        if sample.id in first_seen:
            raise DatasetError(
                f"{where}: duplicate id {sample.id!r}, first seen at {first_seen[sample.id]}"
            )
        first_seen[sample.id] = where
        yield sample


def _boolq_truth(label: object) -> bool | None:
    # bool before int: True is an int, and bool("false") would be True.
    if isinstance(label, str):
        return {"true": True, "false": False}.get(label)
    if isinstance(label, bool):
        return label
    if isinstance(label, int) and label in (0, 1):
        return label == 1
    return None


def _text(row: Mapping[str, Any], name: str, where: str) -> str:
    if name not in row:
        raise DatasetError(f"{where}: missing field {name!r}")
    value = row[name]
    if not isinstance(value, str):
        raise DatasetError(
            f"{where}: field {name!r} must be a string, got {type(value).__name__} {value!r}"
        )
    return value


def _question(row: Mapping[str, Any], where: str) -> str:
    question = _text(row, "question", where)
    if not question.strip():
        raise DatasetError(f"{where}: empty question")
    return question


def _key(row: Mapping[str, Any], name: str, where: str) -> str:
    """The row's own id field: an integer (JSON, hub) or a non-empty string (CSV)."""
    if name not in row:
        raise DatasetError(f"{where}: missing field {name!r}")
    value = row[name]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise DatasetError(
        f"{where}: field {name!r} must be an integer or a non-empty string, got {value!r}"
    )
