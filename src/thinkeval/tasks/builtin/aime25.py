"""AIME 2025 (I and II, 30 problems): integer answers 0-999, asked for a boxed answer."""

from __future__ import annotations

from thinkeval.records import Sample
from thinkeval.tasks import reasoning_benchmarks
from thinkeval.tasks.rows import key_field, nonempty_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row


def aime25_sample(row: Row) -> Sample:
    """A row `{"problem", "answer"}`; the id is the row's position (`aime25/0` is I-1,
    `aime25/15` is II-1) and the gold the answer as written."""
    return reasoning_benchmarks.reasoning_sample(
        "aime25", str(row.index), nonempty_field(row, "problem"), key_field(row, "answer")
    )


SPEC = reasoning_benchmarks.reasoning_spec(
    name="aime25",
    description="AIME 2025 I and II: 30 competition problems, integer answers 0-999",
    file=DataFile("aime25/test.jsonl", hub=HubSplit("yentinglin/aime_2025", "default", "train")),
    sample=aime25_sample,
    aisbench_names=("aime2025",),
    lenient="aime",
)
