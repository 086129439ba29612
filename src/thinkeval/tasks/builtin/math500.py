"""MATH-500 (the prm800k test subset of MATH): 500 problems, LaTeX answers, 7 subjects."""

from __future__ import annotations

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.tasks import reasoning_benchmarks
from thinkeval.tasks.rows import nonempty_field, text_field
from thinkeval.tasks.spec import DataFile, HubSplit, Row


def math500_sample(row: Row) -> Sample:
    """A row `{"problem", "answer", "subject", "unique_id", ...}`; the id comes from the
    row's `unique_id` (`test/algebra/2584.json` is `math500/algebra/2584`), the subset is the
    subject, and the gold the LaTeX answer as written (`\\frac{14}{3}`, `90^\\circ`)."""
    unique = nonempty_field(row, "unique_id").strip()
    if not unique.startswith("test/") or not unique.endswith(".json"):
        raise DatasetError(f"{row.where}: unique_id {unique!r} is not test/<subject>/<n>.json")
    return reasoning_benchmarks.reasoning_sample(
        "math500",
        unique.removeprefix("test/").removesuffix(".json"),
        nonempty_field(row, "problem"),
        nonempty_field(row, "answer"),
        subset=text_field(row, "subject").strip() or None,
    )


SPEC = reasoning_benchmarks.reasoning_spec(
    name="math500",
    description="MATH-500: 500 competition problems of 7 subjects, LaTeX answers",
    file=DataFile("math500/test.jsonl", hub=HubSplit("HuggingFaceH4/MATH-500", None, "test")),
    sample=math500_sample,
    aisbench_names=("math_prm800k_500", "math500"),
    lenient="math",
    ids_from_data=True,
)
