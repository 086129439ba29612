"""The read model's columns: per unit (a sample, or a sample's repeat), one row per phase.

A unit's outcome is a small integer (`STATUS_CODES`); `ReplyColumns` holds, per unit, the
counted reply's outcome, the recording scorers' verdicts, whether the judge of the protocol
calls for the retry (fixed phase), where it lies in the journal, how the judge scorer read it,
and one column per registered measure (`results.measures`: tokens, budget, timings). A few
dozen bytes a unit, whatever the run's size: texts are read back by journal reference.
"""

from __future__ import annotations

import numpy as np

from thinkeval.records import STATUSES, Attempt
from thinkeval.results.measures import MEASURES, NONE, Measure
from thinkeval.scoring.scorers import recording_scorers
from thinkeval.store.protocol_rules import Outcome

__all__ = [
    "CODE", "CORRECT", "ERROR", "JUDGE_AGREES", "JUDGE_DIFFERS", "JUDGE_MISSING", "NONE",
    "PENDING", "RETRY_CODES", "STATUS_CODES", "ReplyColumns",
]  # fmt: skip

# A sample's outcome in one phase as a small integer: a verdict status, a transport error, or
# nothing recorded yet.
STATUS_CODES: tuple[str, ...] = (*STATUSES, "error", "pending")
CODE = {status: code for code, status in enumerate(STATUS_CODES)}
CORRECT, ERROR, PENDING = CODE["correct"], CODE["error"], CODE["pending"]
RETRY_CODES = (CODE["empty"], CODE["unfinished"])
# The judge scorer (`thinkeval judge`) on a counted reply: it reads only finished replies (NONE
# for the others, and for runs not judged), and its verdict may not be there yet.
JUDGE_MISSING, JUDGE_AGREES, JUDGE_DIFFERS = 0, 1, 2


class ReplyColumns:
    """One phase of one model on one task: per unit, the counted reply's numbers."""

    def __init__(self, size: int, measures: tuple[Measure, ...] = MEASURES) -> None:
        self.status = np.full(size, PENDING, dtype=np.int8)
        # Per recording scorer (registry order, `recording_scorers`), per unit: counted correct.
        self.names = tuple(scorer.name for scorer in recording_scorers())
        self.correct = np.zeros((len(self.names), size), dtype=np.bool_)
        self.due = np.zeros(size, dtype=np.bool_)  # fixed phase: the judge calls for the retry
        self.finish = np.full(size, NONE, dtype=np.int16)  # codes of the read model's `finishes`
        self.ref = np.zeros(size, dtype=np.uint64)
        self.judge = np.full(size, NONE, dtype=np.int8)  # JUDGE_* codes
        self.judge_by = np.zeros(size, dtype=np.int8)  # which of the run's judge models
        # One column per registered measure, by name.
        self.measures = {m.name: np.full(size, m.missing, dtype=m.dtype) for m in measures}
        # What `set` fills, looked up once: (column, how to read it, its missing value).
        self._fill = [(self.measures[m.name], m.of, m.missing) for m in measures]

    def set(
        self, unit: int, attempt: Attempt, outcome: Outcome, due: bool, finish: int, ref: int
    ) -> None:
        self.status[unit] = CODE[outcome.status]
        if outcome.correct:
            self.correct[:, unit] = outcome.correct
        self.due[unit] = due
        self.finish[unit] = finish
        self.ref[unit] = ref
        for column, read, missing in self._fill:
            value = read(attempt)
            column[unit] = missing if value is None else value

    def outcome(self, unit: int) -> Outcome | None:
        code = int(self.status[unit])
        if code == PENDING:
            return None
        tokens = int(self.completion[unit])
        correct = tuple(bool(each) for each in self.correct[:, unit])
        return Outcome(STATUS_CODES[code], correct, None if tokens < 0 else tokens)

    def correct_by(self, scorer: str) -> np.ndarray:
        """Per unit, whether the recording scorer named `scorer` counts the reply correct."""
        row: np.ndarray = self.correct[self.names.index(scorer)]
        return row

    @property
    def ok(self) -> np.ndarray:
        """Units whose counted reply arrived (a verdict, not an error or nothing)."""
        return self.status < ERROR

    # The built-in measures by name, as the readers use them.
    @property
    def completion(self) -> np.ndarray:
        return self.measures["completion"]

    @property
    def reasoning(self) -> np.ndarray:
        return self.measures["reasoning"]

    @property
    def budget(self) -> np.ndarray:
        return self.measures["budget"]

    @property
    def clamped(self) -> np.ndarray:
        """max_tokens sent when the window cut the budget, else 0."""
        return self.measures["clamped"]

    @property
    def latency(self) -> np.ndarray:
        return self.measures["latency"]

    @property
    def ttft(self) -> np.ndarray:
        return self.measures["ttft"]
