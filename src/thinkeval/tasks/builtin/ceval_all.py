"""C-Eval, all 52 subjects: the val split (1346 questions) in four categories, letters A-D.

The prompt is `ceval`'s (AISBench's zero-shot CoT chat prompt) with each subject's Chinese
name from the official `subject_mapping.json` (packaged as `tasks/ceval_subjects.json`); the
six subjects of `ceval` get exactly the names AISBench gives them. Subjects are loaded by
category (STEM, Social Science, Humanities, Other), each in the mapping's order; a limit takes
samples of every category and subject (`tasks.spread`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.kinds.choice import ChoiceKind
from thinkeval.tasks.builtin.ceval import CEVAL_REVISION, COLUMNS, LETTERS
from thinkeval.tasks.prompts import aisbench_prompts, fill, user_message
from thinkeval.tasks.rows import key_field, nonempty_field, text_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row, TaskSpec

CATEGORY_ORDER = ("STEM", "Social Science", "Humanities", "Other")


@cache
def subject_mapping() -> dict[str, tuple[str, str, str]]:
    """subject -> (English name, Chinese name, category), as the official mapping gives them."""
    text = resources.files("thinkeval.tasks").joinpath("ceval_subjects.json").read_text("utf-8")
    return {name: (e, zh, c) for name, (e, zh, c) in json.loads(text).items()}


SUBJECTS = tuple(
    name
    for category in CATEGORY_ORDER
    for name, entry in subject_mapping().items()
    if entry[2] == category
)


def ceval_all_sample(row: Row) -> Sample:
    """A row `{"id", "question", "A", "B", "C", "D", "answer"}` of one subject's val file."""
    subject = row.subset or ""
    entry = subject_mapping().get(subject)
    if entry is None:
        raise DatasetError(f"{row.where}: unknown C-Eval subject {subject!r}")
    key = key_field(row, "id")
    question = nonempty_field(row, "question")
    options = {letter: text_field(row, letter) for letter in LETTERS}
    answer = text_field(row, "answer").strip()
    if answer not in LETTERS:
        raise DatasetError(f"{row.where}: answer must be one of A, B, C, D, got {answer!r}")
    template = aisbench_prompts()["ceval_0shot_cot_chat"]["template"]
    content = fill(template, subject_zh=entry[1], question=question, **options)
    return Sample(
        id=f"ceval_all/{subject}/{key}",
        task="ceval_all",
        messages=(user_message(content),),
        gold=answer,
        subset=subject,
        meta={"subject_zh": entry[1], "category": entry[2]},
    )


SPEC = TaskSpec(
    name="ceval_all",
    # 2: a limit spreads over every category and subject (1 took the first N: all STEM), so a
    # limited run of version 1 is not resumed with other samples.
    version="2",
    description="C-Eval val split, all 52 subjects in 4 categories: 1346 questions",
    files=tuple(
        DataFile(
            f"ceval/val/{subject}_val.csv",
            hub=HubSplit("ceval/ceval-exam", subject, "val", revision=CEVAL_REVISION),
            subset=subject,
            columns=COLUMNS,
        )
        for subject in SUBJECTS
    ),
    sample=ceval_all_sample,
    answer=ChoiceKind("ABCD"),
    lenient="last-option-ABCD",
    ids_from_data=True,
    prompt_source="AISBench ceval_gen_0_shot_cot_chat_prompt, every subject's Chinese name",
    reply_tokens=1800,
    sim_flavour="choice",
    categories={subject: subject_mapping()[subject][2] for subject in SUBJECTS},
)
