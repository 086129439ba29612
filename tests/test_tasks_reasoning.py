"""The reasoning benchmarks: aime24, aime25 and math500 from local copies (the fixture data, and the
real data for the tests marked `real_data`) and the hub."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow
import pytest

from fakehub import FakeHub, parquet
from thinkeval.errors import DatasetError
from thinkeval.tasks import Row, get_task, iter_samples, load_samples
from thinkeval.tasks.builtin.math500 import math500_sample

INSTRUCTION = "\nPlease reason step by step, and put your final answer within \\boxed{}."
SHA256 = {
    "math500/test.jsonl": "35dc41080a3680858b27fa7e0533d2d547825316fc5dafe5d316f4ccc5a06132",
    "aime24/test.jsonl": "af2b8bd2aa911b6333ad0df32f3ca05c7ae8ed10f1731f4372c8ae26990bf7ac",
    "aime25/test.jsonl": "5ee6e9fb9b8c0408c8e3591709b6927063abf73ed238c029167a7eff7376cca0",
}


def _rows(data_dir: Path, file: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (data_dir / file).read_text("utf-8").splitlines()]


def _real_rows(real_data_dir: Path, file: str) -> list[dict[str, Any]]:
    path = real_data_dir / file
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SHA256[file]
    return _rows(real_data_dir, file)


@pytest.mark.parametrize("task", ["aime24", "aime25", "math500"])
def test_spec_defaults(task: str, data_dir: Path) -> None:
    spec = get_task(task)
    assert (spec.suite, spec.answer.name, spec.sim_flavour) == ("math", "math", "math")
    assert spec.lenient == ("math" if task == "math500" else "aime")  # AISBench's post-processors
    assert spec.budgets == (16384, 32768)
    assert spec.generation.as_dict() == {"temperature": 0.6, "top_p": 0.95}
    assert "DeepSeek-R1" in spec.prompt_source
    rows = _rows(data_dir, spec.files[0].local)
    samples = load_samples(task, data_dir)
    assert len(samples) == len(rows) == len({s.id for s in samples})
    for sample, row in zip(samples, rows, strict=True):
        (message,) = sample.messages
        assert message == {"role": "user", "content": row["problem"] + INSTRUCTION}


@pytest.mark.real_data
@pytest.mark.parametrize(("task", "count"), [("aime24", 30), ("aime25", 30), ("math500", 500)])
def test_real_counts(task: str, count: int, real_data_dir: Path) -> None:
    samples = load_samples(task, real_data_dir)
    assert len(samples) == count == len({s.id for s in samples})


def test_aime_golds_and_ids_are_kept_as_written(data_dir: Path) -> None:
    rows = _rows(data_dir, "aime24/test.jsonl")
    samples = load_samples("aime24", data_dir)
    assert [s.id for s in samples] == [f"aime24/{row['id']}" for row in rows]
    assert [s.gold for s in samples] == [row["answer"] for row in rows]
    assert any(s.gold.startswith("0") for s in samples)  # a string, leading zero kept
    aime25_rows = _rows(data_dir, "aime25/test.jsonl")
    aime25 = load_samples("aime25", data_dir)
    assert [s.id for s in aime25] == [f"aime25/{i}" for i in range(len(aime25_rows))]
    assert [s.gold for s in aime25] == [row["answer"] for row in aime25_rows]


@pytest.mark.real_data
def test_real_aime_golds_and_ids(real_data_dir: Path) -> None:
    rows = _real_rows(real_data_dir, "aime24/test.jsonl")
    samples = load_samples("aime24", real_data_dir)
    assert [s.id for s in samples] == [f"aime24/{row['id']}" for row in rows]
    assert [s.gold for s in samples] == [row["answer"] for row in rows]
    assert "025" in [s.gold for s in samples]
    assert samples[0].messages[0]["content"] == rows[0]["problem"] + INSTRUCTION
    aime25 = load_samples("aime25", real_data_dir)
    assert [s.id for s in aime25[:2]] == ["aime25/0", "aime25/1"]
    assert [s.gold for s in aime25[:3]] == ["70", "588", "16"]  # AIME 2025 I, 1-3
    assert aime25[15].gold == "468"  # II-1


def test_math500_ids_subjects_and_latex_golds(data_dir: Path) -> None:
    rows = _rows(data_dir, "math500/test.jsonl")
    samples = load_samples("math500", data_dir)
    ids = [row["unique_id"].removeprefix("test/").removesuffix(".json") for row in rows]
    assert [s.id for s in samples] == [f"math500/{i}" for i in ids]
    assert [s.gold for s in samples] == [row["answer"] for row in rows]
    assert [s.subset for s in samples] == [row["subject"] for row in rows]


@pytest.mark.real_data
def test_real_math500_ids_subjects_and_latex_golds(real_data_dir: Path) -> None:
    rows = _real_rows(real_data_dir, "math500/test.jsonl")
    samples = load_samples("math500", real_data_dir)
    assert samples[0].id == "math500/precalculus/807"
    assert samples[0].gold == "\\left( 3, \\frac{\\pi}{2} \\right)"
    assert [s.gold for s in samples] == [row["answer"] for row in rows]
    assert {s.subset for s in samples} == {row["subject"] for row in rows}
    assert len({s.subset for s in samples}) == 7


def test_a_malformed_math500_row_names_its_line() -> None:
    row = Row({"problem": "p", "answer": "1", "subject": "Algebra", "unique_id": "x/1"}, 0, "f:1")
    with pytest.raises(DatasetError, match=r"f:1: unique_id 'x/1' is not test/<subject>/<n>.json"):
        math500_sample(row)


def test_the_same_samples_come_from_the_hub(fake_hub: FakeHub, data_dir: Path) -> None:
    # The hub's layouts: MATH-500 a JSON Lines file at the top, the AIME sets Parquet under data/
    # (AIME 2025 with integer answers, which read as the same golds).
    text, integer = pyarrow.string(), pyarrow.int64()
    aime24 = _rows(data_dir, "aime24/test.jsonl")
    aime25 = [{**row, "answer": int(row["answer"])} for row in _rows(data_dir, "aime25/test.jsonl")]
    math500 = (data_dir / "math500/test.jsonl").read_bytes()
    fake_hub.add("HuggingFaceH4/MATH-500", {"test.jsonl": math500})
    fake_hub.add(
        "HuggingFaceH4/aime_2024",
        {
            "data/train-00000-of-00001.parquet": parquet(
                [{"id": r["id"], "problem": r["problem"], "answer": r["answer"]} for r in aime24],
                pyarrow.schema([("id", integer), ("problem", text), ("answer", text)]),
            )
        },
    )
    fake_hub.add("yentinglin/aime_2025", {"data/train-00000-of-00001.parquet": parquet(
        aime25, pyarrow.schema([("answer", integer), ("problem", text)]),
    )})  # fmt: skip
    for task in ("math500", "aime24", "aime25"):
        assert list(iter_samples(task, None)) == load_samples(task, data_dir)
