"""MMLU-Pro's rows and prompts, shared by the `mmlu_pro` (official 5-shot CoT) and
`mmlu_pro_0shot` tasks.

The prompt is TIGER-AI-Lab's `evaluate_from_api.py` / `evaluate_from_local.py` CoT prompt: the
initial prompt naming the category, then (5-shot) the 5 validation questions of the same
category with their chains of thought, then the question, its options lettered A-J and
`Answer: Let's think step by step.`. Options are stripped: in 489 test rows the correct option
is the only one with stray whitespace, which would leak the answer. "N/A" padding options (older
revisions of the dataset) are dropped, as the official script does.

Samples come interleaved by category (biology, business, ..., psychology, then again), so
`limit: 14 * k` runs the first k questions of each of the 14 categories: a quick, balanced run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.tasks.prompts import user_message
from thinkeval.tasks.rows import key_field, nonempty_field, text_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row

LETTERS = "ABCDEFGHIJ"
CATEGORIES = (
    "biology", "business", "chemistry", "computer science", "economics", "engineering",
    "health", "history", "law", "math", "other", "philosophy", "physics", "psychology",
)  # fmt: skip
# The dataset revision at the time of writing; the local copy is the "stable" 12,032-row test
# split (see /docs/tasks.md for how the two compare).
REVISION = "b189ec765aa7ed75c8acfea42df31fdae71f97be"
INITIAL = (
    "The following are multiple choice questions (with answers) about {subject}. Think step by "
    'step and then finish your answer with "the answer is (X)" where X is the correct letter '
    "choice.\n\n\n"
)
EXEMPLARS = "exemplars"


def data_file(split: str, subset: str | None = None) -> DataFile:
    name = f"{split}-00000-of-00001.parquet"
    return DataFile(
        f"mmlu_pro/{name}",
        hub=HubSplit("TIGER-Lab/MMLU-Pro", None, split, revision=REVISION, files=(f"data/{name}",)),
        subset=subset,
    )


def question_block(question: str, options: list[str]) -> str:
    lines = [f"{letter}. {option}" for letter, option in zip(LETTERS, options, strict=False)]
    return "Question:\n" + question + "\nOptions:\n" + "\n".join(lines) + "\n"


def mmlu_pro_sample(task: str, row: Row) -> Sample:
    """A row `{"question_id", "question", "options", "answer", "category", "cot_content"}` of
    the test split (or, with subset `exemplars`, the validation split). Its message is the
    zero-shot prompt; `five_shot` puts the exemplars in."""
    key = key_field(row, "question_id")
    question = nonempty_field(row, "question")
    raw = row.fields.get("options")
    if not isinstance(raw, list) or not all(isinstance(o, str) for o in raw):
        raise DatasetError(f"{row.where}: options must be a list of strings")
    options = [option.strip() for option in raw if option.strip() != "N/A"]
    if not 2 <= len(options) <= len(LETTERS):
        raise DatasetError(f"{row.where}: {len(options)} options, expected 2 to 10")
    # `answer` (the letter) is what the official scripts score; question 3983's answer_index
    # disagrees with it, and the later revision keeps the letter.
    answer = text_field(row, "answer").strip()
    if answer not in LETTERS[: len(options)]:
        raise DatasetError(f"{row.where}: answer {answer!r} is not one of its options' letters")
    category = nonempty_field(row, "category").strip()
    if category not in CATEGORIES:
        raise DatasetError(f"{row.where}: unknown category {category!r}")
    block = question_block(question, options)
    exemplar = row.subset == EXEMPLARS
    cot = text_field(row, "cot_content") if exemplar else ""
    head = INITIAL.format(subject=category)
    return Sample(
        id=f"{task}/{'validation/' if exemplar else ''}{key}",
        task=task,
        messages=(user_message(head + block + "Answer: Let's think step by step."),),
        gold=answer,
        subset=category,
        meta={"block": block, "cot": cot, "exemplar": exemplar, "options": len(options)},
    )


def interleave(samples: Iterator[Sample]) -> Iterator[Sample]:
    """The test samples round-robin over the categories, each category in data order."""
    by_category: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples:
        if not sample.meta.get("exemplar"):
            by_category[sample.subset or ""].append(sample)
    longest = max((len(items) for items in by_category.values()), default=0)
    for index in range(longest):
        for category in CATEGORIES:
            items = by_category.get(category, [])
            if index < len(items):
                yield items[index]


def five_shot(samples: Iterator[Sample]) -> Iterator[Sample]:
    """The official 5-shot CoT prompts: the validation split's 5 exemplars of each category
    (its first file) before every test question of that category."""
    exemplars: dict[str, list[str]] = defaultdict(list)
    tests = []
    for sample in samples:
        if sample.meta.get("exemplar"):
            cot = sample.meta["cot"].replace(
                "A: Let's think step by step.", "Answer: Let's think step by step."
            )
            exemplars[sample.subset or ""].append(sample.meta["block"] + cot + "\n\n")
        else:
            tests.append(sample)
    for sample in interleave(iter(tests)):
        category = sample.subset or ""
        shots = exemplars.get(category, [])[:5]
        if len(shots) < 5:
            raise DatasetError(f"MMLU-Pro validation split: fewer than 5 {category} exemplars")
        content = (
            INITIAL.format(subject=category)
            + "".join(shots)
            + sample.meta["block"]
            + "Answer: Let's think step by step."
        )
        yield replace(sample, messages=(user_message(content),))
