"""Compact run state: samples files read by offset, id indexes, the counted attempt per phase."""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest

from thinkeval.errors import JournalError
from thinkeval.records import Attempt, Sample
from thinkeval.store.counted import (
    ERROR,
    PRESENT,
    RETRY_CANDIDATE,
    UNJUDGED,
    IdIndex,
    Journals,
    count_journal,
    recorded,
)
from thinkeval.store.journal import Journal
from thinkeval.store.rundir import SamplesFile, read_samples, write_samples

EXEMPLARS = ({"role": "user", "content": "Q: 40+2?"}, {"role": "assistant", "content": "42"})


def sample(i: int, shared: bool = True) -> Sample:
    own = ({"role": "user", "content": f"Q: {i}+{i}?"},)
    return Sample(
        id=f"gsm8k/{i}",
        task="gsm8k",
        messages=(*EXEMPLARS, *own) if shared else own,
        gold=str(2 * i),
    )


def attempt(i: int, phase: str = "fixed", **fields: object) -> Attempt:
    values: dict[str, object] = {
        "model": "m",
        "task": "gsm8k",
        "sample_id": f"gsm8k/{i}",
        "phase": phase,
        "budget": 2048,
        "max_tokens": 2048,
        "content": f"The answer is {2 * i}",
        "finish_reason": "stop",
        "state": "finished",
    }
    values.update(fields)
    return Attempt(**values)  # type: ignore[arg-type]


def test_samples_stream_with_offsets_and_read_back_by_offset(tmp_path: Path) -> None:
    samples = [sample(i) for i in range(5)] + [sample(5, shared=False), sample(6)]
    assert write_samples(tmp_path, "gsm8k", iter(samples))[0] == 7
    with SamplesFile(tmp_path, "gsm8k") as stored:
        located = list(stored)
        assert [s for _, s in located] == samples
        for offset, expected in reversed(located):
            assert stored.at(offset) == expected
    # The exemplars are stored once, not per line.
    text = (tmp_path / "samples" / "gsm8k.jsonl").read_text()
    assert text.count("Q: 40+2?") == 1
    assert read_samples(tmp_path, "gsm8k", messages=False)[5].messages == ()


def test_empty_selection_writes_a_readable_file(tmp_path: Path) -> None:
    assert write_samples(tmp_path, "gsm8k", [])[0] == 0
    assert read_samples(tmp_path, "gsm8k") == []


def test_a_broken_samples_line_names_file_and_line(tmp_path: Path) -> None:
    write_samples(tmp_path, "gsm8k", [sample(0), sample(1)])
    path = tmp_path / "samples" / "gsm8k.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + lines[1] + '{"id": "gsm8k/1"}\n')
    with pytest.raises(JournalError, match=rf"{path}:3: not a valid sample record"):
        read_samples(tmp_path, "gsm8k")


def test_id_index_finds_every_id_and_nothing_else() -> None:
    ids = [f"boolq/{i}" for i in random.Random(7).sample(range(100_000), 20_000)]
    index = IdIndex.from_ids(ids)
    assert len(index) == len(ids)
    slots = [index.slot(i) for i in ids]
    assert sorted(slots) == list(range(len(ids)))  # a slot each, all distinct
    assert index.slot("boolq/100001") is None
    assert index.slot("gsm8k/" + ids[0].split("/")[1]) is None


def test_id_index_refuses_a_repeated_id() -> None:
    with pytest.raises(JournalError, match=r"samples/x\.jsonl: a sample id occurs twice"):
        IdIndex.from_ids(["a", "b", "a"], "samples/x.jsonl")


def test_first_success_counts_and_errors_only_until_then(tmp_path: Path) -> None:
    index = IdIndex.from_ids(f"gsm8k/{i}" for i in range(4))
    with Journal(tmp_path) as journal:
        journal.append(attempt(0, content=None, error="HTTP 500", state=None))
        journal.append(attempt(0, content="The answer is 999"))  # first success: counts
        journal.append(attempt(0, content="The answer is 0"))  # a duplicate: ignored
        journal.append(attempt(1, content="thinking", finish_reason="length", state="unfinished"))
        journal.append(attempt(1, "retry", content="The answer is 2"))
        journal.append(attempt(2, content=None, error="timeout", state=None))
        journal.append(attempt(3, state=None))  # a version-1 line: no reply state recorded
        journal.append(attempt(3, model="other"))
        journal.append(attempt(9))  # not in the selection
    with Journals(tmp_path) as journals:
        counted = count_journal(journals, {"gsm8k": index})
        assert set(counted) == {("m", "gsm8k"), ("other", "gsm8k")}
        entry = counted["m", "gsm8k"]

        def slot(i: int) -> int:
            found = index.slot(f"gsm8k/{i}")
            assert found is not None
            return found

        assert journals.read(entry.fixed[slot(0)]).content == "The answer is 999"
        assert recorded(entry.fixed[slot(0)]) and not recorded(entry.retry_ref(slot(0)))
        assert entry.fixed[slot(1)] & RETRY_CANDIDATE
        assert journals.read(entry.retry_ref(slot(1))).content == "The answer is 2"
        assert entry.fixed[slot(2)] & (PRESENT | ERROR) == PRESENT | ERROR
        assert not recorded(entry.fixed[slot(2)])
        assert entry.fixed[slot(3)] & UNJUDGED
        only_m = count_journal(journals, {"gsm8k": index}, model="m")
        assert set(only_m) == {("m", "gsm8k")}
        # A model with no retry attempt holds no retry references: 8 bytes a sample, not 16.
        assert counted["other", "gsm8k"].retry is None and entry.retry is not None
        assert counted["other", "gsm8k"].retry_ref(slot(3)) == 0


def test_a_corrupt_journal_line_stops_the_count(tmp_path: Path) -> None:
    with Journal(tmp_path) as journal:
        journal.append(attempt(0))
    path = tmp_path / "journal" / "main.jsonl"
    with path.open("ab") as handle:
        handle.write(b'{"model": "m"}\n')
        handle.write(msgspec.json.encode(attempt(1)) + b"\n")
    with Journals(tmp_path) as journals, pytest.raises(JournalError, match=rf"{path}:2"):
        count_journal(journals, {"gsm8k": IdIndex.from_ids(["gsm8k/0", "gsm8k/1"])})
