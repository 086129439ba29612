"""AIME 2024 (I and II, 30 problems): integer answers 0-999, asked for a boxed answer."""

from __future__ import annotations

from thinkeval.records import Sample
from thinkeval.tasks import reasoning_benchmarks
from thinkeval.tasks.rows import key_field, nonempty_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row


def aime24_sample(row: Row) -> Sample:
    """A row `{"id", "problem", "answer", ...}`; the id is the row's own (`aime24/60`) and the
    gold the answer as written, leading zeros kept (`"025"`: equivalence reads it as 25)."""
    problem, answer = nonempty_field(row, "problem"), key_field(row, "answer")
    return reasoning_benchmarks.reasoning_sample("aime24", key_field(row, "id"), problem, answer)


SPEC = reasoning_benchmarks.reasoning_spec(
    name="aime24",
    description="AIME 2024 I and II: 30 competition problems, integer answers 0-999",
    file=DataFile("aime24/test.jsonl", hub=HubSplit("HuggingFaceH4/aime_2024", None, "train")),
    sample=aime24_sample,
    aisbench_names=("aime2024",),
    lenient="aime",
    ids_from_data=True,
)
