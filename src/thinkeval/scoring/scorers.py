"""Scorers as named, versioned plug-ins over the same stored replies.

A scorer turns one reply to one sample of a task into a `Verdict`. `strict` (the protocol's:
only a finished reply's explicit final answer counts) and `lenient` (what AISBench reports by
default) run whenever a reply is recorded; scorers that need more (an LLM judge) run after the
fact and store their verdicts beside the journal. Verdicts are summarised per scorer name.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from thinkeval.records import ReplyState, Verdict
from thinkeval.scoring.lenient import lenient_verdict
from thinkeval.scoring.strict import strict_verdict

if TYPE_CHECKING:
    from thinkeval.tasks.spec import TaskSpec


@dataclass(frozen=True, slots=True)
class ReplyText:
    """What a scorer may read of a reply. `state` is set only where it was recorded rather than
    read from the text (imported replies)."""

    content: str | None
    reasoning: str | None
    finish_reason: str | None
    state: ReplyState | None = None


class Scorer(Protocol):
    """A named, versioned way of judging a reply. `version` changes whenever some reply would
    get another verdict: recorded verdicts of another version are scored again."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def recording(self) -> bool:
        """Whether it runs whenever a reply is recorded (its verdicts are journalled, counted
        into `summary.json` and shown as a report column); False for after-the-fact scorers."""
        ...

    def score(self, spec: TaskSpec, reply: ReplyText, gold: str) -> Verdict: ...

    def version_for(self, spec: TaskSpec) -> str:
        """The version its verdicts on `spec` carry (the scorer's and the task's scoring)."""
        ...


@dataclass(frozen=True)
class StrictScorer:
    name: str = "strict"
    version: str = "2"
    recording: bool = True

    def score(self, spec: TaskSpec, reply: ReplyText, gold: str) -> Verdict:
        return strict_verdict(spec.answer, reply.content, reply.finish_reason, gold, reply.state)

    def version_for(self, spec: TaskSpec) -> str:
        return f"{self.version}/{spec.scoring_version}"


@dataclass(frozen=True)
class LenientScorer:
    name: str = "lenient"
    version: str = "3"
    recording: bool = True

    def score(self, spec: TaskSpec, reply: ReplyText, gold: str) -> Verdict:
        return lenient_verdict(spec.lenient, reply.content, reply.reasoning, gold)

    def version_for(self, spec: TaskSpec) -> str:
        return f"{self.version}/{spec.lenient}"


STRICT = StrictScorer()
LENIENT = LenientScorer()
# The registry, in order: strict first (the protocol's), then the others as registered. Every
# reader of verdicts, counts, summaries and reports goes through it by name.
SCORERS: dict[str, Scorer] = {STRICT.name: STRICT, LENIENT.name: LENIENT}
# Scorers that run whenever a reply is recorded, in registry order (kept as a tuple: it is read
# per reply). `Outcome.correct` and the counts are aligned with it.
RECORDING_SCORERS: tuple[Scorer, ...] = (STRICT, LENIENT)


def recording_scorers() -> tuple[Scorer, ...]:
    """The recording scorers now, in registry order (strict first)."""
    return RECORDING_SCORERS


def _refresh() -> None:
    global RECORDING_SCORERS
    RECORDING_SCORERS = tuple(scorer for scorer in SCORERS.values() if scorer.recording)


def register_scorer(scorer: Scorer) -> None:
    """Add `scorer` to the registry (after the ones there): a recording one is then scored,
    journalled, counted and reported with strict and lenient."""
    if scorer.name in SCORERS:
        raise ValueError(f"a scorer named {scorer.name!r} is registered already")
    SCORERS[scorer.name] = scorer
    _refresh()


def unregister_scorer(name: str) -> None:
    if name in (STRICT.name, LENIENT.name):
        raise ValueError(f"{name!r} is built in")
    SCORERS.pop(name, None)
    _refresh()


@contextmanager
def registered(scorer: Scorer) -> Iterator[Scorer]:
    """`scorer` registered for the `with` block only (tests, one-off runs)."""
    register_scorer(scorer)
    try:
        yield scorer
    finally:
        unregister_scorer(scorer.name)


def get_scorer(name: str) -> Scorer:
    scorer = SCORERS.get(name)
    if scorer is None:
        raise ValueError(f"unknown scorer {name!r}: expected one of {', '.join(SCORERS)}")
    return scorer
