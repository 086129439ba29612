"""GPQA Diamond and MMLU-Pro: reading (the encrypted zip, Parquet, the gated hub), seeded option
shuffles, the official prompts, per-category order, and both end to end against the simulator.

The real GPQA questions never appear here: the real_data tests check counts, ids, golds and
shuffles only, and print nothing of the questions.
"""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from conftest import ThreadedSim, write_config
from fakehub import FakeHub
from thinkeval.cli import main
from thinkeval.errors import DatasetError
from thinkeval.sim import SimConfig, answer_key_from_samples
from thinkeval.tasks import DataSource, iter_samples, load_samples
from thinkeval.tasks.builtin.gpqa_diamond import (
    HUB_FILE,
    REVISION,
    ZIP_MEMBER,
    ZIP_PASSWORD,
    permutation,
)
from thinkeval.tasks.mmlu_pro import CATEGORIES

GPQA_HEAD = "Answer the following multiple choice question. The last line of your response "


def _gpqa_rows(data_dir: Path) -> dict[str, dict[str, str]]:
    import csv
    import io

    with zipfile.ZipFile(data_dir / "gpqa/dataset.zip") as archive:
        text = archive.read(ZIP_MEMBER, pwd=ZIP_PASSWORD.encode()).decode()
    return {row["Record ID"]: row for row in csv.DictReader(io.StringIO(text))}


def _shown(content: str) -> dict[str, str]:
    lines = content.rsplit("\n\n", 1)[1].split("\n")
    return {line[0]: line[3:] for line in lines}


def test_gpqa_shuffles_are_seeded_recorded_and_differ(data_dir: Path) -> None:
    rows = _gpqa_rows(data_dir)
    samples = load_samples("gpqa_diamond", data_dir)
    assert len(samples) == 4 * len(rows) == 48
    assert load_samples("gpqa_diamond", data_dir) == samples  # reproducible
    orders: dict[str, set[str]] = {}
    for sample in samples:
        _, record, tag = sample.id.split("/")
        shuffle, order = tag.removeprefix("s").split("-")
        assert [int(i) for i in order] == permutation(record, int(shuffle))
        orders.setdefault(record, set()).add(order)
        content = sample.messages[0]["content"]
        assert content.startswith(GPQA_HEAD)
        shown = _shown(content)
        assert list(shown) == ["A", "B", "C", "D"]
        row = rows[record]
        # The gold letter shows the correct answer, stripped; the question is stripped too.
        assert shown[sample.gold] == row["Correct Answer"].strip()
        assert "\n\n" + row["Question"].strip() + "\n\n" in content
        assert sample.subset == row["High-level domain"]
    assert all(len(seen) > 1 for seen in orders.values())  # repeats see other orders


def test_gpqa_wrong_password_is_one_clear_error(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "gpqa").mkdir()
    with zipfile.ZipFile(tmp_path / "gpqa/dataset.zip", "w") as archive:
        archive.writestr("dataset/other.csv", "x\n")
    with pytest.raises(DatasetError, match=r"dataset.zip: the archive has no member"):
        load_samples("gpqa_diamond", tmp_path)


def test_gpqa_comes_from_the_gated_hub_with_a_token(
    fake_hub: FakeHub, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with zipfile.ZipFile(data_dir / "gpqa/dataset.zip") as archive:
        csv_bytes = archive.read(ZIP_MEMBER, pwd=ZIP_PASSWORD.encode())
    repo, token = "Idavidrein/gpqa", "hf_test_token"
    fake_hub.add(repo, {HUB_FILE: csv_bytes}, commit=REVISION, token=token)
    fake_hub.add(repo, {HUB_FILE: b"Record ID\n"}, token=token)  # main has moved on since
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with pytest.raises(DatasetError, match="HF_TOKEN"):
        list(iter_samples("gpqa_diamond", None))
    monkeypatch.setenv("HF_TOKEN", token)
    sources: list[DataSource] = []
    from_hub = list(iter_samples("gpqa_diamond", None, sources))
    assert from_hub == load_samples("gpqa_diamond", data_dir)
    # The pinned commit is what is asked for and read, never the branch.
    assert {source.origin for source in sources} == {f"{repo}@{REVISION}"}
    assert fake_hub.downloads() and all(
        path.endswith(f"/resolve/{REVISION}/{HUB_FILE}") for path in fake_hub.downloads()
    )


@pytest.mark.real_data
def test_real_gpqa_counts_ids_golds_and_shuffles(real_data_dir: Path) -> None:
    rows = _gpqa_rows(real_data_dir)
    samples = load_samples("gpqa_diamond", real_data_dir)
    assert len(rows) == 198 and len(samples) == 792 == len({s.id for s in samples})
    assert Counter(s.subset for s in samples) == {"Chemistry": 372, "Physics": 344, "Biology": 76}
    for sample in samples:
        correct = rows[sample.id.split("/")[1]]["Correct Answer"].strip()
        # A boolean, so that a failure prints the id and never the question.
        shows_gold = f"\n{sample.gold}) {correct}\n" in sample.messages[0]["content"] + "\n"
        assert shows_gold, sample.id
    golds = Counter(s.gold for s in samples)
    assert min(golds.values()) > 150  # the seeded shuffles spread the answer over A-D
    assert [s.id for s in load_samples("gpqa_diamond", real_data_dir)] == [s.id for s in samples]


def test_mmlu_pro_prompts_options_and_order(data_dir: Path) -> None:
    samples = load_samples("mmlu_pro", data_dir)
    zero = load_samples("mmlu_pro_0shot", data_dir)
    assert len(samples) == len(zero) == 42
    # Interleaved by category: limit 14 * k is k questions of each category.
    assert [s.subset for s in samples[:14]] == list(CATEGORIES)
    assert [s.id.split("/")[1] for s in samples] == [s.id.split("/")[1] for s in zero]
    for five, plain in zip(samples, zero, strict=True):
        content = five.messages[0]["content"]
        category = five.subset
        assert content.startswith(
            f"The following are multiple choice questions (with answers) about {category}."
        )
        assert content.count("Question:\n") == 6
        assert content.count(f"Made-up {category} exemplar") == 5
        assert content.endswith("Answer: Let's think step by step.")
        assert plain.messages[0]["content"].count("Question:\n") == 1
        block = content.rsplit("Question:\n", 1)[1]
        options = [
            line for line in block.split("\n") if line[:2] in {f"{c}." for c in "ABCDEFGHIJ"}
        ]
        assert len(options) == five.meta["options"]
        assert five.gold in "ABCDEFGHIJ"[: len(options)]
        # Stripped: the correct option has no stray blanks that would give it away.
        assert all(line == line.strip() and "  " not in line for line in options)
        assert f"answer {'ABCDEFGHIJ'.index(five.gold)}" in options["ABCDEFGHIJ".index(five.gold)]
    assert {s.meta["options"] for s in samples} == {4, 7, 10}


@pytest.mark.real_data
def test_real_mmlu_pro_counts_ids_golds(real_data_dir: Path) -> None:
    import pyarrow.parquet

    path = real_data_dir / "mmlu_pro/test-00000-of-00001.parquet"
    rows = {r["question_id"]: r for r in pyarrow.parquet.read_table(path).to_pylist()}
    samples = load_samples("mmlu_pro_0shot", real_data_dir)
    assert len(samples) == 12032 == len({s.id for s in samples})
    assert {int(s.id.split("/")[1]) for s in samples} == set(rows)
    assert all(s.gold == rows[int(s.id.split("/")[1])]["answer"] for s in samples)
    assert Counter(s.subset for s in samples)["math"] == 1351
    assert [s.subset for s in samples[:14]] == list(CATEGORIES)
    unstripped = 0
    for sample in samples:
        options = rows[int(sample.id.split("/")[1])]["options"]
        unstripped += any(option != option.strip() for option in options)
        lettered = zip("ABCDEFGHIJ", options, strict=False)
        lines = [f"\n{letter}. {option.strip()}\n" for letter, option in lettered]
        assert all(line in sample.messages[0]["content"] for line in lines), sample.id
    assert unstripped == 532  # the rows whose options carry stray blanks: none reach a prompt
    five = list(iter_samples("mmlu_pro", real_data_dir))
    assert len(five) == 12032 and five[0].messages[0]["content"].count("Question:\n") == 6


def test_gpqa_and_mmlu_pro_end_to_end_against_the_simulator(tmp_path: Path, data_dir: Path) -> None:
    samples = [s for t in ("gpqa_diamond", "mmlu_pro") for s in load_samples(t, data_dir)]
    server = ThreadedSim(SimConfig(port=0, model="m", p_long=0.2, p_wrong=0.3),
                         answer_key_from_samples(samples)).start()  # fmt: skip
    try:
        entry = {"name": "m", "base_url": server.base_url, "concurrency": 16}
        tasks = ["gpqa_diamond", {"name": "mmlu_pro", "limit": 28}]
        path = write_config(tmp_path / "run.yaml", {"run": "x", "tasks": tasks, "models": [entry]})
        assert main(["run", str(path), "--output", str(tmp_path / "out")]) == 0
    finally:
        server.stop()
    results = json.loads((tmp_path / "out" / "summary.json").read_text())["results"]
    by_task = {r["task"]: r for r in results}
    gpqa, mmlu = by_task["gpqa_diamond"], by_task["mmlu_pro"]
    assert gpqa["total"] == 48 and set(gpqa["subjects"]) == {"Physics", "Chemistry", "Biology"}
    assert mmlu["total"] == 28 and set(mmlu["subjects"]) == set(CATEGORIES)
    assert all(block["total"] == 2 for block in mmlu["subjects"].values())
    assert 0 < gpqa["adaptive"]["accuracy"] < 1 and 0 < mmlu["adaptive"]["accuracy"] < 1
