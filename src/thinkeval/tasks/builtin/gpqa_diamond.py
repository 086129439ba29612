"""GPQA Diamond: 198 graduate-level four-option questions (physics, chemistry, biology), each
asked in 4 option orders.

The file keeps the correct answer in its own column, so the harness must shuffle. Every
question is asked once per shuffle `s` = 0..3 (simple-evals' default of 4 repeats); shuffle s
of the question with record id R orders the options by `random.Random(f"gpqa_diamond/{R}/{s}")
.sample(range(4), 4)`, where 0 is the correct answer and 1-3 the incorrect answers 1-3. The
permutation is recorded in the sample id (`gpqa_diamond/<R>/s<s>-<p>`: `p` lists the original
option at A, B, C, D), so a run is reproducible and the shuffles see different orders.
"""

from __future__ import annotations

import random

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.kinds.choice import ChoiceKind
from thinkeval.tasks.prompts import fill, user_message
from thinkeval.tasks.rows import nonempty_field
from thinkeval.tasks.spec import THINKING_SAMPLING, DataFile, HubSplit, Row, TaskSpec

SHUFFLES = 4
LETTERS = "ABCD"
OPTIONS = ("Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3")
COLUMNS = ("Record ID", "Question", *OPTIONS, "High-level domain")
# simple-evals' QUERY_TEMPLATE_MULTICHOICE (openai/simple-evals, common.py), also what
# Artificial Analysis sends for GPQA Diamond.
TEMPLATE = (
    "Answer the following multiple choice question. The last line of your response should be "
    "of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. "
    "Think step by step before answering.\n\n{question}\n\nA) {A}\nB) {B}\nC) {C}\nD) {D}"
)
# Idavidrein/gpqa's commit pinned by Aleph Alpha's eval-framework (hf-dataset-revisions.json);
# its gpqa_diamond.csv is git blob 7589e3e4, byte for byte the member of the local zip.
REVISION = "633f5ee89ab8ad4522a9f850766b73f62147ffdd"
HUB_FILE = "gpqa_diamond.csv"
# The authors' zip and the password their README publishes (the questions stay encrypted).
ZIP_MEMBER = "dataset/gpqa_diamond.csv"
ZIP_PASSWORD = "deserted-untie-orchid"


def permutation(record_id: str, shuffle: int) -> list[int]:
    """The original option (0: correct) shown at A, B, C, D in shuffle `shuffle`.

    >>> permutation("recExample", 0) == permutation("recExample", 0)
    True
    """
    return random.Random(f"gpqa_diamond/{record_id}/{shuffle}").sample(range(4), 4)


def gpqa_sample(row: Row) -> Sample:
    """A row of the GPQA release layout; `row.subset` names the shuffle (`s0`..`s3`). The
    question and options are stripped (94 cells carry stray blanks); the subset of the sample
    is the high-level domain."""
    shuffle = int((row.subset or "s0").removeprefix("s"))
    record = nonempty_field(row, "Record ID").strip()
    question = nonempty_field(row, "Question").strip()
    options = [nonempty_field(row, column).strip() for column in OPTIONS]
    domain = nonempty_field(row, "High-level domain").strip()
    order = permutation(record, shuffle)
    shown = {letter: options[index] for letter, index in zip(LETTERS, order, strict=True)}
    gold = LETTERS[order.index(0)]
    if options[0] in options[1:]:  # two rows repeat a distractor; the answer never is
        raise DatasetError(f"{row.where}: the correct answer is also an incorrect answer")
    return Sample(
        id=f"gpqa_diamond/{record}/s{shuffle}-{''.join(map(str, order))}",
        task="gpqa_diamond",
        messages=(user_message(fill(TEMPLATE, question=question, **shown)),),
        gold=gold,
        subset=domain,
        meta={"shuffle": shuffle, "permutation": order},
    )


SPEC = TaskSpec(
    name="gpqa_diamond",
    version="1",
    description="GPQA Diamond: 198 expert questions x 4 option orders, letters A-D",
    files=tuple(
        DataFile(
            "gpqa/dataset.zip",
            # Gated on the hub: accept the terms there and set HF_TOKEN (docs/tasks.md).
            hub=HubSplit(
                "Idavidrein/gpqa", "gpqa_diamond", "train", revision=REVISION, files=(HUB_FILE,)
            ),
            subset=f"s{shuffle}",
            format="csv",
            columns=COLUMNS,
            member=ZIP_MEMBER,
            password=ZIP_PASSWORD,
        )
        for shuffle in range(SHUFFLES)
    ),
    sample=gpqa_sample,
    answer=ChoiceKind("ABCD"),
    lenient="simple-evals-ABCD",
    budgets=(16384, 32768),
    generation=THINKING_SAMPLING,
    ids_from_data=True,
    prompt_source="simple-evals QUERY_TEMPLATE_MULTICHOICE (Artificial Analysis uses the same)",
    reply_tokens=8000,  # Qwen3-class thinking on a graduate-level science question
    sim_flavour="choice",
)
