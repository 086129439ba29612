"""The golds a report keeps per task: a short one whole, a long one by reference.

A LiveCodeBench problem's gold is its tests, megabytes each; a report of the full release cannot
hold them all. A gold over `GOLD_INLINE_MAX` characters is kept as what the sample browser shows
(its start, length and digest: `shown_gold`) and its digest; the whole gold is read back from the
run's samples file by offset only where a reply must be scored again with it (its recorded verdicts
are stale, or were judged against other tests) or an export asks for it whole. The journal records a
long gold's digest (`Attempt.gold_digest`), so the recorded verdicts are known current without the
tests (`store.protocol_rules.recorded_scored`). Short golds (numbers, letters) take the path they
always took.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from thinkeval.records import GOLD_INLINE_MAX, Attempt, ReplyState, gold_digest
from thinkeval.store.protocol_rules import (
    Scored,
    attempt_state,
    recorded_scored,
    score_attempt,
)
from thinkeval.store.rundir import SamplesFile
from thinkeval.tasks.spec import TaskSpec

GOLD_SHOWN = 300  # characters of a long gold the index keeps

# The digest without `gold_digest`'s cache: that keeps its last few golds alive, and a reader
# going through every gold once gains nothing from it.
_digest = gold_digest.__wrapped__


def shown_gold(gold: str, task: str | None = None) -> str:
    """The gold as the index and the exports hold it: whole, or the start of a long one with its
    length, digest and where it is whole (the run's samples/`task`.jsonl)."""
    if len(gold) <= GOLD_INLINE_MAX:
        return gold
    where = f"samples/{task}.jsonl" if task else "samples file"
    return (
        f"{gold[:GOLD_SHOWN]} … ({len(gold):,} characters, {_digest(gold)}; the whole gold is "
        f"in the run's {where})"
    )


@dataclass(frozen=True, slots=True)
class LongGold:
    """A gold kept by reference: its digest and length, and its sample's line in the file."""

    digest: str
    length: int
    offset: int


class Golds:
    """One task's golds in one run, by sample position; `golds[i]` is always the whole gold."""

    def __init__(self, path: Path, task: str) -> None:
        self.path = path  # the run's samples file of `task`
        self.task = task
        self.kept: list[str] = []  # the gold, or a long one's shown form
        self.long: dict[int, LongGold] = {}  # positions of the long ones
        self.reads = 0  # long golds read back from the samples file so far
        self._last: tuple[int, str] | None = None  # the long gold read back last

    def append(self, gold: str, offset: int) -> None:
        """Add the next sample's gold; `offset`: where its line starts in the samples file."""
        if len(gold) <= GOLD_INLINE_MAX:
            self.kept.append(gold)
            return
        self.long[len(self.kept)] = LongGold(_digest(gold), len(gold), offset)
        self.kept.append(shown_gold(gold, self.task))

    def __len__(self) -> int:
        return len(self.kept)

    def shown(self, position: int) -> str:
        return self.kept[position]

    def keys(self) -> list[str]:
        """What tells two golds apart, by position: a short gold itself, a long one's digest."""
        if not self.long:
            return self.kept
        found = list(self.kept)
        for position, long in self.long.items():
            found[position] = long.digest
        return found

    def __getitem__(self, position: int) -> str:
        """The whole gold; a long one is read back from the samples file (the last one kept)."""
        found = self.long.get(position)
        if found is None:
            return self.kept[position]
        if self._last is not None and self._last[0] == position:
            return self._last[1]
        with SamplesFile(self.path, messages=False) as samples:
            gold = samples.at(found.offset).gold
        self.reads += 1
        self._last = (position, gold)
        return gold

    def whole_for(self, position: int, attempt: Attempt) -> str:
        """The whole gold, from `attempt` itself where its journal held it inline (older runs)."""
        found = self.long.get(position)
        inline = attempt.gold
        if (
            found is not None
            and inline is not None
            and len(inline) == found.length
            and _digest(inline) == found.digest
        ):
            return inline
        return self[position]

    def _recorded(self, position: int, attempt: Attempt, spec: TaskSpec) -> Scored | None:
        """A long gold's attempt scored from what it recorded, when that is current for it."""
        found = self.long[position]
        if attempt.error is None:
            if attempt.gold_digest is not None:
                if attempt.gold_digest != found.digest:
                    return None
            elif attempt.gold is None or _digest(attempt.gold) != found.digest:
                return None
        return recorded_scored(attempt, spec)

    def scored(self, position: int, attempt: Attempt, spec: TaskSpec) -> Scored:
        """`store.protocol_rules.score_attempt` against this gold; for a long one the recorded
        verdicts where they are current for it (scored again, with the gold read back, where
        not)."""
        if position in self.long:
            found = self._recorded(position, attempt, spec)
            if found is not None:
                return found
        return score_attempt(attempt, spec, self.whole_for(position, attempt))

    def state(self, position: int, attempt: Attempt, spec: TaskSpec) -> ReplyState | None:
        """`store.protocol_rules.attempt_state` against this gold: a recorded state needs
        none read."""
        if attempt.error is not None:
            return None
        if attempt.state is not None:
            return attempt.state
        return attempt_state(attempt, spec, self.whole_for(position, attempt))

    def for_diagnosis(self, position: int) -> str | None:
        """The gold a diagnosis compares a buried answer with: none for a long one (the browser
        shows the diagnosis's label, which does not depend on it)."""
        return None if position in self.long else self.kept[position]
