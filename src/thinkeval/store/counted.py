"""Which journalled attempt counts for each sample and phase, kept in a few bytes a sample.

Resuming a run, writing its summary and `thinkeval status` all need, per sample and repeat, the
attempt that counts in each phase. A 100,000-sample run cannot afford a Python object per sample
for that, so a task's sample ids become a sorted array of 64-bit hashes (the position in it is
the sample's slot; with repeats, each slot has one unit per repeat) and each phase keeps one
64-bit reference per unit: where the counted attempt's line starts in the journal, plus what
deciding the next step needs without reading it again. The attempt itself is read back by that
reference when it is needed.

The rules are the protocol's (`store/protocol_rules.py`), applied one line at a time: `takes_over`
decides which attempt counts, and the reply state recorded with the attempt whether a retry is due.
"""

from __future__ import annotations

import hashlib
import heapq
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from thinkeval.errors import JournalError
from thinkeval.records import Attempt
from thinkeval.scoring.state import RETRY_STATES
from thinkeval.store.journal import JournalLine, iter_located, journal_files, read_attempt_line
from thinkeval.store.protocol_rules import takes_over
from thinkeval.store.rundir import SamplesFile

# Reference layout, low bits first: 1 present, 2 error, 4 fixed reply empty/unfinished,
# 8 no reply state recorded (a version-1 journal: the judge reads the attempt), 12 bits journal
# file, then the byte offset of the line in that file.
PRESENT, ERROR, RETRY_CANDIDATE, UNJUDGED = 1, 2, 4, 8
_FILE_SHIFT, _FILE_BITS, _OFFSET_SHIFT = 4, 12, 16
_SORT_CHUNK = 4096


def _zeros(size: int) -> array[int]:
    # Repeating a one-item array allocates once; array("Q", bytes(8 * size)) holds twice that.
    return array("Q", [0]) * size


def id_hash(sample_id: str) -> int:
    """A stable 64-bit hash of a sample id (the same in every process, unlike `hash`)."""
    return int.from_bytes(hashlib.blake2b(sample_id.encode(), digest_size=8).digest(), "big")


class IdIndex:
    """A task's sample ids as a sorted array of their hashes: 8 bytes a sample.

    With `repeats` > 1 each sample has that many units (one per repeat), numbered
    `slot * repeats + repeat`.

    >>> index = IdIndex.from_ids(["gsm8k/0", "gsm8k/1"])
    >>> len(index), index.slot("gsm8k/1") is not None, index.slot("gsm8k/9")
    (2, True, None)
    """

    def __init__(self, hashes: array[int], repeats: int = 1) -> None:
        self._hashes = hashes
        self.repeats = repeats

    @classmethod
    def from_ids(cls, ids: Iterable[str], source: str = "samples", repeats: int = 1) -> IdIndex:
        """Index `ids`; a repeated id (or, one in 10^10 for 100,000 ids, a hash collision) is
        refused, naming `source`."""
        unsorted = array("Q", map(id_hash, ids))
        # Sorted in chunks and merged: sorting all at once would box every hash as a Python int.
        # The chunks are sorted in place and the merge fills an array sized once, so at most
        # two arrays of 8 bytes a sample are alive at a time.
        chunks = []
        for start in range(0, len(unsorted), _SORT_CHUNK):
            chunk = unsorted[start : start + _SORT_CHUNK]
            unsorted[start : start + _SORT_CHUNK] = array("Q", sorted(chunk))
            chunks.append(range(start, start + len(chunk)))
        hashes = _zeros(len(unsorted))
        merged = heapq.merge(*(map(unsorted.__getitem__, chunk) for chunk in chunks))
        for position, value in enumerate(merged):
            hashes[position] = value
        del unsorted
        for i in range(1, len(hashes)):
            if hashes[i] == hashes[i - 1]:
                raise JournalError(f"{source}: a sample id occurs twice")
        return cls(hashes, repeats)

    def __len__(self) -> int:
        return len(self._hashes)

    @property
    def units(self) -> int:
        """Samples times repeats: how many (sample, repeat) pairs the protocol runs."""
        return len(self._hashes) * self.repeats

    def slot(self, sample_id: str) -> int | None:
        """The sample's position in the index, or None when it is not one of the ids."""
        key = id_hash(sample_id)
        i = bisect_left(self._hashes, key)
        return i if i < len(self._hashes) and self._hashes[i] == key else None

    def unit(self, sample_id: str, repeat: int) -> int | None:
        """The (sample, repeat) pair's number, or None when either is not part of the run."""
        if not 0 <= repeat < self.repeats:
            return None
        slot = self.slot(sample_id)
        return None if slot is None else slot * self.repeats + repeat


def index_samples(run_dir: Path, repeats: dict[str, int]) -> dict[str, IdIndex]:
    """Each task's recorded sample ids, indexed with its repeats (see `IdIndex`)."""
    indexes = {}
    for task, count in repeats.items():
        with SamplesFile(run_dir, task, messages=False) as samples:
            ids = (sample.id for _, sample in samples)
            indexes[task] = IdIndex.from_ids(ids, str(samples.path), count)
    return indexes


@dataclass
class CountedAttempts:
    """One model on one task: per unit, a reference to the counted fixed and retry attempt.

    The retry references are made at the first retry attempt: a fixed phase and a run whose
    replies all fit the first budget need none.
    """

    fixed: array[int]
    retry: array[int] | None = None

    @classmethod
    def empty(cls, size: int) -> CountedAttempts:
        return cls(_zeros(size))

    def retry_ref(self, unit: int) -> int:
        """The counted retry attempt of `unit` (0: none recorded)."""
        return self.retry[unit] if self.retry is not None else 0

    def offer(self, unit: int, attempt: Attempt, ref: int) -> None:
        """Keep `attempt` (at `ref`) if it takes over what the unit holds (`judge.takes_over`)."""
        if attempt.phase == "fixed":
            refs = self.fixed
        else:
            if self.retry is None:
                self.retry = _zeros(len(self.fixed))
            refs = self.retry
        current = refs[unit]
        if not takes_over(None if not current else not current & ERROR, attempt.final):
            return
        flags = PRESENT
        if attempt.refused is not None:
            pass  # final: counted as refused, never asked again
        elif attempt.error is not None:
            flags |= ERROR
        elif attempt.state is None:
            flags |= UNJUDGED
        elif attempt.state in RETRY_STATES:
            flags |= RETRY_CANDIDATE
        refs[unit] = ref | flags


def recorded(ref: int) -> bool:
    """A successful attempt (or a refusal) is recorded (an error attempt is asked again)."""
    return bool(ref & PRESENT) and not ref & ERROR


class Journals:
    """A run's journal files, fixed when this is made, and reading attempts back by reference."""

    def __init__(
        self, run_dir: Path, on_invalid: Callable[[JournalLine], None] | None = None
    ) -> None:
        self.run_dir = run_dir
        self.on_invalid = on_invalid  # a broken line skipped and told here, not raised
        self.files = journal_files(run_dir)
        self._numbers = {path: number for number, path in enumerate(self.files)}
        if len(self.files) > 1 << _FILE_BITS:
            raise JournalError(f"{run_dir}: too many journal files ({len(self.files)})")
        self._handles: dict[int, IO[bytes]] = {}

    def located(self) -> Iterator[tuple[Attempt, int]]:
        """Every recorded attempt with its reference (see `journal.iter_located`)."""
        for attempt, path, offset in iter_located(self.run_dir, self.files, self.on_invalid):
            yield attempt, offset << _OFFSET_SHIFT | self._numbers[path] << _FILE_SHIFT

    def read(self, ref: int) -> Attempt:
        number = ref >> _FILE_SHIFT & ((1 << _FILE_BITS) - 1)
        handle = self._handles.get(number)
        if handle is None:
            handle = self._handles[number] = self.files[number].open("rb")
        return read_attempt_line(handle, ref >> _OFFSET_SHIFT, self.files[number])

    def close(self) -> None:
        for handle in self._handles.values():
            handle.close()
        self._handles.clear()

    def __enter__(self) -> Journals:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def count_journal(
    journals: Journals,
    indexes: dict[str, IdIndex],
    model: str | None = None,
    observe: Callable[[Attempt], None] | None = None,
    observe_selected: Callable[[Attempt], None] | None = None,
) -> dict[tuple[str, str], CountedAttempts]:
    """One pass over every journal: the counted attempts per (model, task).

    Attempts of tasks not in `indexes`, of samples or repeats outside them (another selection)
    and, when `model` is given, of other models are skipped. `observe` sees every valid attempt,
    `observe_selected` those not skipped.
    A broken line raises `JournalError` naming the file and line (a torn last line is skipped).
    """
    counted: dict[tuple[str, str], CountedAttempts] = {}
    for attempt, ref in journals.located():
        if observe is not None:
            observe(attempt)
        if model is not None and attempt.model != model:
            continue
        index = indexes.get(attempt.task)
        unit = index.unit(attempt.sample_id, attempt.repeat) if index is not None else None
        if index is None or unit is None:
            continue
        if observe_selected is not None:
            observe_selected(attempt)
        key = (attempt.model, attempt.task)
        entry = counted.get(key)
        if entry is None:
            entry = counted[key] = CountedAttempts.empty(index.units)
        entry.offer(unit, attempt, ref)
    return counted
