"""ceval_all: all 52 C-Eval subjects in their four categories, per-subject and per-category
results in the summary and the report with the average over categories as the headline; the
seed's `ceval` is unchanged."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.sim import SimConfig, answer_key_from_samples
from thinkeval.tasks import get_task, load_samples
from thinkeval.tasks.builtin.ceval import SUBJECTS as SEED_SUBJECTS
from thinkeval.tasks.builtin.ceval_all import SUBJECTS, subject_mapping


def test_subjects_and_categories() -> None:
    spec = get_task("ceval_all")
    assert len(SUBJECTS) == 52 == len(spec.files) == len(set(SUBJECTS))
    assert Counter(spec.categories.values()) == {
        "STEM": 20, "Social Science": 10, "Humanities": 11, "Other": 11
    }  # fmt: skip
    assert set(SEED_SUBJECTS) <= set(SUBJECTS)


def test_the_seed_subjects_ask_exactly_what_ceval_asks(data_dir: Path) -> None:
    seed = load_samples("ceval", data_dir)
    every = {s.id.removeprefix("ceval_all/"): s for s in load_samples("ceval_all", data_dir)}
    for sample in seed:
        other = every[sample.id.removeprefix("ceval/")]
        assert (other.messages, other.gold, other.subset) == (
            sample.messages, sample.gold, sample.subset
        )  # fmt: skip
    assert get_task("ceval").version == "1" and len(get_task("ceval").files) == 6


def test_every_subject_names_itself_in_chinese(data_dir: Path) -> None:
    for sample in load_samples("ceval_all", data_dir):
        zh = subject_mapping()[sample.subset or ""][1]
        assert sample.messages[0]["content"].startswith(f"以下是中国关于{zh}考试")


@pytest.mark.real_data
def test_real_counts(real_data_dir: Path) -> None:
    samples = load_samples("ceval_all", real_data_dir)
    assert len(samples) == 1346 == len({s.id for s in samples})
    categories = get_task("ceval_all").categories
    assert Counter(categories[s.subset or ""] for s in samples) == {
        "STEM": 430, "Social Science": 275, "Humanities": 257, "Other": 384
    }  # fmt: skip
    assert len(load_samples("ceval", real_data_dir)) == 233


def test_ceval_all_end_to_end_with_category_tables(tmp_path: Path, data_dir: Path) -> None:
    samples = load_samples("ceval_all", data_dir)
    server = ThreadedSim(SimConfig(port=0, model="m", p_long=0.2, p_wrong=0.3),
                         answer_key_from_samples(samples)).start()  # fmt: skip
    try:
        entry = {"name": "m", "base_url": server.base_url, "concurrency": 16}
        path = write_config(tmp_path / "run.yaml",
                            {"run": "c", "tasks": ["ceval_all"], "models": [entry]})  # fmt: skip
        assert main(["run", str(path), "--output", str(tmp_path / "out")]) == 0
    finally:
        server.stop()
    (result,) = json.loads((tmp_path / "out" / "summary.json").read_text())["results"]
    assert len(result["subjects"]) == 52 and result["total"] == len(samples)
    block = result["categories"]
    assert set(block["categories"]) == {"STEM", "Social Science", "Humanities", "Other"}
    categories = get_task("ceval_all").categories
    for name, entry in block["categories"].items():
        mine = [s for s, c in categories.items() if c == name]
        assert entry["subjects"] == len(mine)
        assert entry["total"] == sum(result["subjects"][s]["total"] for s in mine)
        correct = sum(result["subjects"][s]["adaptive"]["correct"] for s in mine)
        assert entry["adaptive_accuracy"] == pytest.approx(correct / entry["total"])
    average = sum(e["adaptive_accuracy"] for e in block["categories"].values()) / 4
    assert block["adaptive_average"] == pytest.approx(average)
    report = tmp_path / "report.md"
    assert main(["report", str(tmp_path / "out"), "--format", "md", "--out", str(report)]) == 0
    text = report.read_text()
    assert "Per category (questions pooled)" in text and "average over 4 categories" in text
    assert "| m | Social Science | 10 |" in text
    rows = [text.index(f"| m | {name} |") for name in ("STEM", "Humanities", "Other")]
    assert rows == sorted(rows)  # the categories in C-Eval's order


def test_a_limit_spreads_over_every_category_and_says_what_the_average_covers(
    tmp_path: Path, data_dir: Path
) -> None:
    # The first samples in dataset order are all STEM: a limit used to average over one category.
    samples = load_samples("ceval_all", data_dir)
    categories = get_task("ceval_all").categories
    assert get_task("ceval_all").version == "2"  # a limited run of version 1 asked other samples
    server = ThreadedSim(SimConfig(port=0, model="m"), answer_key_from_samples(samples)).start()
    try:
        for limit, present in ((8, 4), (2, 2)):
            entry = {"name": "m", "base_url": server.base_url}
            config = {"run": "c", "tasks": [{"name": "ceval_all", "limit": limit}],
                      "models": [entry]}  # fmt: skip
            out = tmp_path / f"out{limit}"
            assert main(["run", str(write_config(tmp_path / "run.yaml", config)),
                         "--output", str(out)]) == 0  # fmt: skip
            (result,) = json.loads((out / "summary.json").read_text())["results"]
            assert result["total"] == limit
            assert len(result["categories"]["categories"]) == present
            asked = [json.loads(line) for line in (out / "samples" / "ceval_all.jsonl").open()]
            subjects = [row["subset"] for row in asked if "subset" in row]
            assert len(set(subjects)) == limit  # one subject each: spread over subjects too
            assert len({categories[s] for s in subjects}) == present
            report = tmp_path / f"report{limit}.md"
            assert main(["report", str(out), "--out", str(report)]) == 0
            label = "average over 4 categories"
            if present < 4:
                label = "average over 2 of 4 categories (the others have no samples)"
            assert f"| m | {label} |" in report.read_text()
    finally:
        server.stop()
