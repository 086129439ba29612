"""C-Eval: the val split of six finance and law subjects (233 questions), letters A-D."""

from __future__ import annotations

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.kinds.choice import ChoiceKind
from thinkeval.tasks.prompts import aisbench_prompts, fill, user_message
from thinkeval.tasks.rows import key_field, nonempty_field, text_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row, TaskSpec

_PROMPT = "ceval_0shot_cot_chat"
# The order samples are loaded and reported in.
SUBJECTS: tuple[str, ...] = (
    "college_economics",
    "business_administration",
    "accountant",
    "tax_accountant",
    "law",
    "legal_professional",
)
LETTERS = "ABCD"
COLUMNS: tuple[str, ...] = ("id", "question", "A", "B", "C", "D", "answer")
CEVAL_REVISION = "617524a00b307ff6f9933702f724131fe12ca7ce"


def ceval_sample(row: Row) -> Sample:
    """A row `{"id", "question", "A", "B", "C", "D", "answer"}` of one subject, asked with
    AISBench's 0-shot chain-of-thought chat prompt; the gold is the answer letter."""
    prompt = aisbench_prompts()[_PROMPT]
    subject = row.subset or ""
    subject_zh = prompt["subjects_zh"].get(subject)
    if subject_zh is None:
        raise DatasetError(f"{row.where}: unknown C-Eval subject {subject!r}")
    key = key_field(row, "id")
    question = nonempty_field(row, "question")
    options = {letter: text_field(row, letter) for letter in LETTERS}
    answer = text_field(row, "answer").strip()
    if answer not in LETTERS:
        raise DatasetError(f"{row.where}: answer must be one of A, B, C, D, got {answer!r}")
    content = fill(prompt["template"], subject_zh=subject_zh, question=question, **options)
    return Sample(
        id=f"ceval/{subject}/{key}",
        task="ceval",
        messages=(user_message(content),),
        gold=answer,
        subset=subject,
        meta={"subject_zh": subject_zh},
    )


SPEC = TaskSpec(
    name="ceval",
    version="1",
    description="C-Eval val split, six finance and law subjects: 233 four-option questions",
    files=tuple(
        DataFile(
            f"ceval/val/{subject}_val.csv",
            # Found by name in the repo at that commit (`<subject>/val-*.parquet`).
            hub=HubSplit("ceval/ceval-exam", subject, "val", revision=CEVAL_REVISION),
            subset=subject,
            columns=COLUMNS,
        )
        for subject in SUBJECTS
    ),
    sample=ceval_sample,
    answer=ChoiceKind("ABCD"),
    lenient="last-option-ABCD",
    ids_from_data=True,
    prompt_source="AISBench ceval_gen_0_shot_cot_chat_prompt (0-shot chain of thought, chat)",
    aisbench_names=("ceval",),
    suite="default",
    reply_tokens=1800,  # Qwen3-class thinking on a multiple-choice exam question
    sim_flavour="choice",
)
