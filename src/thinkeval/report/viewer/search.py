"""Full-text search of a run: which rows' question, gold answer or reply content hold a text.

The match is the page's own (report/page_source.js): case-insensitive (`str.lower`, as
JavaScript's `toLowerCase`), over the prompt (the last user message), the gold answer and the
content of the replies that count (a question's text matches every model's row and repeat; a
reply's, its own row). Nothing is indexed in advance: each search reads the samples
files and the journals once, line by line, and decodes only the lines whose raw JSON contains
the text (JSON escapes it the same way in the line and in the needle), so memory stays flat
whatever the run's size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import numpy as np
import orjson

from thinkeval.records import decode_attempt
from thinkeval.report._cells import RunData
from thinkeval.report._samples import Catalog
from thinkeval.store.rundir import SAMPLES_DIR


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """`(offset, line)` for every complete line of a file."""
    with path.open("rb") as handle:
        offset = 0
        for line in handle:
            if line.endswith(b"\n"):
                yield offset, line
            offset += len(line)


class Searcher:
    """Searches the runs behind a catalog (see the module docstring)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._models = {name: code for code, name in enumerate(catalog.models)}
        self._tasks = {name: code for code, name in enumerate(catalog.tasks)}
        self._questions: dict[tuple[int, str], np.ndarray] = {}

    def _questions_of(self, run: RunData, task: str) -> np.ndarray:
        """Per sample position in the run's task, its question number (every model of a run
        was asked the run's samples)."""
        catalog = self.catalog
        model = self._models[run.models[0]]
        found = np.full(len(run.samples[task]), -1, dtype=np.int32)
        in_task = np.nonzero(catalog.question_task == self._tasks[task])[0]
        positions = catalog.position[model, in_task]
        asked = positions >= 0
        found[positions[asked]] = in_task[asked]
        return found

    def _question(self, run: RunData, task: str, position: int) -> int:
        """The question number of the sample at `position` of the run's task."""
        questions = self._questions.get((id(run), task))
        if questions is None:
            questions = self._questions[(id(run), task)] = self._questions_of(run, task)
        return int(questions[position])

    def search(self, text: str) -> np.ndarray:
        """The rows that match `text`, in order (none for an empty text)."""
        wanted = text.lower()
        hits = np.zeros(len(self.catalog), dtype=np.bool_)
        if not wanted:
            return np.nonzero(hits)[0]
        raw = orjson.dumps(wanted).decode()[1:-1]  # as it appears inside a JSON line
        for run in self.catalog.data.runs:
            for task in run.tasks:
                self._search_samples(run, task, wanted, raw, hits)
            self._search_journal(run, wanted, raw, hits)
        return np.nonzero(hits)[0]

    def _search_samples(
        self, run: RunData, task: str, wanted: str, raw: str, hits: np.ndarray
    ) -> None:
        items = run.samples[task]
        offsets = np.frombuffer(items.offsets, dtype=np.uint64)
        samples = self.catalog.samples_file(run, task)
        for offset, line in _lines(run.path / SAMPLES_DIR / f"{task}.jsonl"):
            if raw not in line.decode("utf-8", "replace").lower():
                continue
            position = int(np.searchsorted(offsets, offset))
            if position >= len(items) or offsets[position] != offset:
                continue  # the first line: the exemplars every sample shares
            sample = samples.at(offset)
            prompt = next(
                (
                    m.get("content", "")
                    for m in reversed(sample.messages)
                    if m.get("role") == "user"
                ),
                "",
            )
            if wanted in prompt.lower() or wanted in sample.gold.lower():
                hits[self.catalog.rows_of_question(self._question(run, task, position))] = True

    def _search_journal(self, run: RunData, wanted: str, raw: str, hits: np.ndarray) -> None:
        catalog = self.catalog
        assert run.journals is not None
        for path in run.journals.files:
            for _, line in _lines(path):
                if raw not in line.decode("utf-8", "replace").lower():
                    continue
                try:
                    attempt = decode_attempt(line)
                except msgspec.DecodeError:
                    continue  # a broken line: the report already refused those
                if wanted not in (attempt.content or "").lower():
                    continue
                cell = catalog.data.cells.get((attempt.model, attempt.task))
                if cell is None or cell.run is not run:
                    continue
                position = cell.samples.position.get(attempt.sample_id)
                if position is None or not 0 <= attempt.repeat < cell.k:
                    continue
                unit = position * cell.k + attempt.repeat
                ref = int(cell.replies(attempt.phase).ref[unit])
                # The line matched; the reply that counts for this sample and phase must too
                # (it is usually this very line, but a superseded reply does not count).
                if not ref or wanted not in (run.read(ref).content or "").lower():
                    continue
                question = self._question(run, attempt.task, position)
                first = catalog.first_row[self._models[attempt.model], question]
                hits[first + attempt.repeat] = True
