"""The journal: durable appends, torn tails, corruption, locking, a full disk."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from thinkeval.errors import JournalError
from thinkeval.records import Attempt, Usage
from thinkeval.store.journal import Journal, iter_attempts, journal_files


def attempt(i: int, phase: str = "fixed", **extra: object) -> Attempt:
    return Attempt(
        model="m",
        task="gsm8k",
        sample_id=f"gsm8k/{i}",
        phase=phase,  # type: ignore[arg-type]
        budget=2048,
        max_tokens=2048,
        content=f"The answer is {i}",
        finish_reason="stop",
        verdict="correct",
        **extra,  # type: ignore[arg-type]
    )


def test_append_and_read_back(tmp_path: Path) -> None:
    with Journal(tmp_path) as journal:
        for i in range(5):
            journal.append(attempt(i))
    read = list(iter_attempts(tmp_path))
    assert [a.sample_id for a in read] == [f"gsm8k/{i}" for i in range(5)]
    assert read[3] == attempt(3)


def test_an_attempt_that_would_not_read_back_is_refused(tmp_path: Path) -> None:
    with Journal(tmp_path) as journal:
        journal.append(attempt(0))
        with pytest.raises(JournalError, match=r"would not read back: usage.prompt_tokens"):
            journal.append(attempt(1, usage=Usage(prompt_tokens="12")))  # type: ignore[arg-type]
        with pytest.raises(JournalError, match=r"would not read back: phase"):
            journal.append(attempt(2, phase="third"))
        journal.append(attempt(3))
    assert [a.sample_id for a in iter_attempts(tmp_path)] == ["gsm8k/0", "gsm8k/3"]


def test_torn_last_line_is_ignored_then_cut(tmp_path: Path) -> None:
    with Journal(tmp_path) as journal:
        journal.append(attempt(0))
        journal.append(attempt(1))
    path = journal_files(tmp_path)[0]
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"schema_version": 1, "model": "m", "ta')  # a crash mid-write
    assert [a.sample_id for a in iter_attempts(tmp_path)] == ["gsm8k/0", "gsm8k/1"]
    with Journal(tmp_path) as journal:  # reopening cuts the torn tail, then appends cleanly
        journal.append(attempt(2))
    data = path.read_bytes()
    assert data.startswith(whole)
    assert data[len(whole) :].count(b"\n") == 1  # exactly the new record, torn bytes gone
    assert [a.sample_id for a in iter_attempts(tmp_path)] == ["gsm8k/0", "gsm8k/1", "gsm8k/2"]


def test_torn_only_line(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "main.jsonl").write_bytes(b'{"schema_ver')
    assert list(iter_attempts(tmp_path)) == []
    with Journal(tmp_path) as journal:
        journal.append(attempt(7))
    assert [a.sample_id for a in iter_attempts(tmp_path)] == ["gsm8k/7"]


def test_corrupt_line_in_the_middle_names_file_and_line(tmp_path: Path) -> None:
    with Journal(tmp_path) as journal:
        journal.append(attempt(0))
    path = journal_files(tmp_path)[0]
    with path.open("ab") as handle:
        handle.write(b"garbage\n")
        handle.write(path.read_bytes().splitlines()[0] + b"\n")
    with pytest.raises(JournalError, match=rf"{path}:2: not a valid attempt record"):
        list(iter_attempts(tmp_path))


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    with Journal(tmp_path), pytest.raises(JournalError, match="another thinkeval process"):
        Journal(tmp_path).open()
    with Journal(tmp_path, "shard-1-of-2"), Journal(tmp_path, "shard-2-of-2"):
        pass  # shards write files of their own


def test_records_survive_sigkill(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_journal import attempt
        from thinkeval.store.journal import Journal
        from pathlib import Path
        journal = Journal(Path({str(tmp_path)!r}))
        journal.open()
        for i in range(50):
            journal.append(attempt(i))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == -signal.SIGKILL
    assert len(list(iter_attempts(tmp_path))) == 50


def test_full_disk_leaves_no_torn_line(tmp_path: Path) -> None:
    # RLIMIT_FSIZE makes write(2) fail like a full disk, partial writes included.
    with Journal(tmp_path) as journal:
        journal.append(attempt(0))
    path = journal_files(tmp_path)[0]
    limit = path.stat().st_size + 100  # room for part of one more line only
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_journal import attempt
        from thinkeval.errors import JournalError
        from thinkeval.store.journal import Journal
        from pathlib import Path
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
        with Journal(Path({str(tmp_path)!r})) as journal:
            try:
                journal.append(attempt(1, reasoning="x" * 500))
            except JournalError as exc:
                print(exc)
                sys.exit(3)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 3, proc.stderr
    assert "cannot write the journal" in proc.stdout
    assert "everything recorded before is intact" in proc.stdout
    assert path.read_bytes().endswith(b"\n")
    assert [a.sample_id for a in iter_attempts(tmp_path)] == ["gsm8k/0"]
    assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] != limit  # only the child was limited


def test_unwritable_run_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(JournalError, match="cannot open the journal for writing"):
        Journal(blocker).open()
    assert os.path.exists(blocker)
