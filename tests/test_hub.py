"""Task data from the Hugging Face hub, through huggingface_hub, against a fake hub on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow
import pytest

from fakehub import FakeHub, parquet
from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.tasks import DataSource, get_task, iter_samples, load_samples
from thinkeval.tasks.hub import CONVERTED_BRANCH, hub_rows, resolve_split
from thinkeval.tasks.source import describe_sources
from thinkeval.tasks.spec import DataFile, HubSplit

TASKS = ("gsm8k", "boolq", "ceval")
TEXT = pyarrow.schema([("question", pyarrow.string()), ("answer", pyarrow.string())])


def rows(*questions: str) -> list[dict[str, Any]]:
    return [{"question": q, "answer": f"{q}\n#### 1"} for q in questions]


def questions(file: DataFile) -> list[tuple[int, str]]:
    return [(row.index, row.fields["question"]) for row in hub_rows(file)]


@pytest.mark.parametrize("task", TASKS)
def test_hub_gives_the_samples_of_the_local_files(
    task: str, fake_hub: FakeHub, data_dir: Path
) -> None:
    """The hub's layout (Parquet, int labels and ids) gives exactly the local prompts."""
    sources: list[DataSource] = []
    from_hub = list(iter_samples(task, None, sources))
    assert from_hub == load_samples(task, data_dir)
    hub = get_task(task).files[0].hub
    assert hub is not None and hub.revision is not None
    assert {source.origin for source in sources} == {f"{hub.path}@{hub.revision}"}
    assert all(f"/resolve/{hub.revision}/" in path for path in fake_hub.downloads())


def test_the_cache_serves_a_second_load(fake_hub: FakeHub) -> None:
    first = list(iter_samples("gsm8k"))
    downloads = len(fake_hub.downloads())
    assert downloads == 1
    assert list(iter_samples("gsm8k")) == first
    assert len(fake_hub.downloads()) == downloads


def test_offline_mode_reads_the_cache(fake_hub: FakeHub, tmp_path: Path) -> None:
    """With HF_HUB_OFFLINE=1 and the hub gone, a pinned split still loads from the cache."""
    first = list(iter_samples("boolq"))
    fake_hub.stop()
    code = "from thinkeval.tasks import iter_samples; print(sum(1 for _ in iter_samples('boolq')))"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(len(first))


def test_a_split_in_several_shards_reads_as_one(fake_hub: FakeHub) -> None:
    fake_hub.add(
        "org/sharded",
        {
            "main/test-00000-of-00002.parquet": parquet(rows("a", "b"), TEXT),
            "main/test-00001-of-00002.parquet": parquet(rows("c"), TEXT),
            "main/train-00000-of-00001.parquet": parquet(rows("train"), TEXT),
        },
    )
    file = DataFile("x.jsonl", hub=HubSplit("org/sharded", "main", "test"))
    assert questions(file) == [(0, "a"), (1, "b"), (2, "c")]


def test_a_script_only_repo_reads_the_parquet_conversion(fake_hub: FakeHub) -> None:
    fake_hub.add("org/scripted", {"scripted.py": b"# a loading script", "README.md": b"x"})
    converted = fake_hub.add(
        "org/scripted",
        {"plain/validation/0000.parquet": parquet(rows("q0", "q1"), TEXT)},
        branch=CONVERTED_BRANCH,
    )
    split = HubSplit("org/scripted", "plain", "validation")
    resolved = resolve_split(split)
    assert (resolved.commit, resolved.paths) == (converted, ("plain/validation/0000.parquet",))
    assert questions(DataFile("x.jsonl", hub=split)) == [(0, "q0"), (1, "q1")]


def test_jsonl_and_csv_files_on_the_hub(fake_hub: FakeHub) -> None:
    fake_hub.add(
        "org/text",
        {
            "data/test-00000-of-00001.jsonl": b'{"question": "j0", "answer": "x"}\n',
            "data/train.csv": b"question,answer\nc0,x\nc1,y\n",
        },
    )
    assert questions(DataFile("x", hub=HubSplit("org/text", None, "test"))) == [(0, "j0")]
    train = DataFile("x", hub=HubSplit("org/text", None, "train"), columns=("question",))
    assert questions(train) == [(0, "c0"), (1, "c1")]


def test_sources_name_repo_commit_and_files() -> None:
    sources = [DataSource("hub", "ceval/ceval-exam@617524a", f"{s}/val.parquet") for s in "ab"]
    listed = "hub ceval/ceval-exam@617524a (a/val.parquet, b/val.parquet)"
    assert describe_sources(sources) == listed
    assert describe_sources(sources, files_shown=1) == "hub ceval/ceval-exam@617524a (2 files)"


# --- what goes wrong is one line naming the repo, revision and split ----------------------------


def one_line(error: pytest.ExceptionInfo[DatasetError]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_no_file_for_the_split_is_named(fake_hub: FakeHub) -> None:
    fake_hub.add("org/empty", {"README.md": b"nothing"})
    with pytest.raises(DatasetError) as caught:
        resolve_split(HubSplit("org/empty", "main", "test"))
    message = one_line(caught)
    assert "hub org/empty@main: no data file of config 'main', split 'test'" in message
    assert "main/test-*" in message


def test_an_unknown_revision_is_named(fake_hub: FakeHub) -> None:
    split = HubSplit("openai/gsm8k", "main", "test", revision="0" * 40)
    with pytest.raises(DatasetError) as caught:
        resolve_split(split)
    assert f"dataset openai/gsm8k has no revision '{'0' * 40}'" in one_line(caught)


def test_a_pinned_file_missing_from_the_repo_is_named(fake_hub: FakeHub) -> None:
    fake_hub.add("org/moved", {"main/test-00000-of-00001.parquet": parquet(rows("a"), TEXT)})
    split = HubSplit("org/moved", "main", "test", files=("main/test.parquet",))
    with pytest.raises(DatasetError) as caught:
        resolve_split(split)
    assert "the repo has no file main/test.parquet" in one_line(caught)


def test_nothing_cached_and_no_hub_names_the_variables_to_check(tmp_path: Path) -> None:
    """Offline with an empty cache takes the path of an unreachable hub (whose retries
    huggingface_hub spreads over ~20 s), at once."""
    code = (
        "from thinkeval.tasks import load_samples\n"
        "try:\n    load_samples('gsm8k', None)\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    message = out.stdout.strip()
    assert message.startswith("DatasetError cannot download openai/gsm8k@740312add88f"), message
    assert "not in the cache" in message
    assert "HF_ENDPOINT" in message and "THINKEVAL_DATA_DIR" in message
    assert "\n" not in message and out.stderr == ""


def test_a_corrupt_parquet_file_is_named(fake_hub: FakeHub) -> None:
    fake_hub.add("org/broken", {"main/test-00000-of-00001.parquet": b"PAR1 not really"})
    with pytest.raises(DatasetError) as caught:
        questions(DataFile("x", hub=HubSplit("org/broken", "main", "test")))
    assert "test-00000-of-00001.parquet: not a readable Parquet file" in one_line(caught)


def test_a_bad_row_names_the_repo_and_row(fake_hub: FakeHub) -> None:
    bad = [*rows("fine"), {"question": "", "answer": "x\n#### 1"}]
    fake_hub.add("org/badrow", {"main/test-00000-of-00001.parquet": parquet(bad, TEXT)})
    spec = get_task("gsm8k")
    hub = HubSplit("org/badrow", "main", "test")
    broken = type(spec)(**{**spec.__dict__, "files": (DataFile("x", hub=hub),)})
    samples: list[Sample] = []
    with pytest.raises(
        DatasetError,
        match=r"hub org/badrow@\w{12} main/test-00000-of-00001"
        r"\.parquet row 1: empty question",
    ):
        samples.extend(iter_samples(broken))
