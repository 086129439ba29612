"""Scorers as named, versioned plug-ins over the same stored replies.

A scorer turns one reply to one sample of a task into a `Verdict`. `strict` (the protocol's:
only a finished reply's explicit final answer counts) and `lenient` (what AISBench reports by
default) run whenever a reply is recorded; scorers that need more (an LLM judge) run after the
fact and store their verdicts beside the journal. Verdicts are summarised per scorer name.
"""

from __future__ import annotations

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

    def score(self, spec: TaskSpec, reply: ReplyText, gold: str) -> Verdict: ...

    def version_for(self, spec: TaskSpec) -> str:
        """The version its verdicts on `spec` carry (the scorer's and the task's scoring)."""
        ...


@dataclass(frozen=True)
class StrictScorer:
    name: str = "strict"
    version: str = "2"

    def score(self, spec: TaskSpec, reply: ReplyText, gold: str) -> Verdict:
        return strict_verdict(spec.answer, reply.content, reply.finish_reason, gold, reply.state)

    def version_for(self, spec: TaskSpec) -> str:
        return f"{self.version}/{spec.scoring_version}"


@dataclass(frozen=True)
class LenientScorer:
    name: str = "lenient"
    version: str = "3"

    def score(self, spec: TaskSpec, reply: ReplyText, gold: str) -> Verdict:
        return lenient_verdict(spec.lenient, reply.content, reply.reasoning, gold)

    def version_for(self, spec: TaskSpec) -> str:
        return f"{self.version}/{spec.lenient}"


STRICT = StrictScorer()
LENIENT = LenientScorer()
# Scorers that run whenever a reply is recorded.
RECORDING_SCORERS: tuple[Scorer, ...] = (STRICT, LENIENT)
SCORERS: dict[str, Scorer] = {scorer.name: scorer for scorer in RECORDING_SCORERS}


def get_scorer(name: str) -> Scorer:
    scorer = SCORERS.get(name)
    if scorer is None:
        raise ValueError(f"unknown scorer {name!r}: expected one of {', '.join(SCORERS)}")
    return scorer
