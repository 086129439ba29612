"""Scorers as named, versioned plug-ins over the same stored replies.

A scorer turns one reply to one sample of a task into a `Verdict`. `strict` (the protocol's:
only a finished reply's explicit final answer counts) and `lenient` (what AISBench reports by
default) run whenever a reply is recorded; scorers that need more (an LLM judge) run after the
fact and store their verdicts beside the journal. Verdicts are summarised per scorer name.

The scorers in effect are a `ScorerSet`: the built-in one, unless a `with registered(...)` block
(scoped to the block and its context: nothing else sees it) or `register_scorer` (for the whole
process, a script's choice) says otherwise. Reading a run never changes it.

A scorer whose checks are slow or may hang (symbolic maths, IFEval's checkers, running code) says
so with `pooled_for(task)`; the scoring pool (`scoring.pooled`) then scores it in a worker process
with a time limit, by that hook alone (see `docs/scoring.md`, "Adding a scorer").
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from thinkeval.records import Attempt, ReplyState, ToolCall, Verdict
from thinkeval.scoring.kinds import AnswerKind
from thinkeval.scoring.lenient import (
    SLOW_RULES,
    lenient_text,
    lenient_text_verdict,
    lenient_verdict,
)
from thinkeval.scoring.state import reply_state
from thinkeval.scoring.strict import strict_verdict
from thinkeval.scoring.text import fold_width


@dataclass(frozen=True, slots=True)
class ReplyText:
    """What a scorer may read of a reply. `state` is set only where it was recorded rather than
    read from the text (imported replies); `tool_calls` are the calls the server parsed;
    `unparsed`: the server could not deliver the finished output in its format (no text)."""

    content: str | None
    reasoning: str | None
    finish_reason: str | None
    state: ReplyState | None = None
    tool_calls: list[ToolCall] | None = None
    unparsed: bool = False

    @classmethod
    def of(cls, attempt: Attempt, state: ReplyState | None = None) -> ReplyText:
        """What a scorer reads of a journalled attempt (`state`: the one judged for it)."""
        return cls(
            attempt.content,
            attempt.reasoning,
            attempt.finish_reason,
            state,
            attempt.calls,
            isinstance(attempt.unparsed, str),
        )


# Every scorer's verdict on a reply the server could not deliver in its format (`unparsed`):
# the model finished, but no scorer has a word of it to read.
UNPARSED = Verdict("no_answer", rule="server-unparsed")


def verdict_of(scorer: Scorer, spec: ScoredTask, reply: ReplyText, gold: str) -> Verdict:
    """`scorer`'s verdict on `reply`; `UNPARSED` for an unparsed reply, whatever the scorer."""
    return UNPARSED if reply.unparsed else scorer.score(spec, reply, gold)


class ScoredTask(Protocol):
    """What a scorer may read of a task (a `TaskSpec` is one; the scoring pool ships a
    `TaskScoring` to its workers)."""

    @property
    def name(self) -> str: ...

    @property
    def answer(self) -> AnswerKind: ...

    @property
    def lenient(self) -> str: ...

    @property
    def scoring_version(self) -> str: ...


@dataclass(frozen=True, slots=True)
class TaskScoring:
    """A task reduced to what scorers read, small and picklable (a worker process gets it)."""

    name: str
    answer: AnswerKind
    lenient: str

    @property
    def scoring_version(self) -> str:
        return f"{self.answer.name}-{self.answer.version}"

    @classmethod
    def of(cls, task: ScoredTask) -> TaskScoring:
        return task if isinstance(task, TaskScoring) else cls(task.name, task.answer, task.lenient)


class Scorer(ABC):
    """A named, versioned way of judging a reply: subclass it (a frozen dataclass, module-level:
    workers get it pickled). `version` changes whenever some reply would get another verdict:
    recorded verdicts of another version are scored again. `recording`: whether it runs whenever
    a reply is recorded (its verdicts are journalled, counted into `summary.json` and shown as a
    report column); False for after-the-fact scorers.

    The methods after `version_for` are capabilities with defaults, for slow scorers: override
    `pooled_for` (and `time_limit_s`) to be scored in a worker process, the rest to refine it."""

    name: str
    version: str
    recording: bool
    # A worker call's time limit for its verdicts (None: the answer kind's, else the pool's).
    time_limit_s: float | None = None

    @abstractmethod
    def score(self, spec: ScoredTask, reply: ReplyText, gold: str) -> Verdict: ...

    @abstractmethod
    def version_for(self, spec: ScoredTask) -> str:
        """The version its verdicts on `spec` carry (the scorer's and the task's scoring)."""

    def pooled_for(self, task: ScoredTask) -> bool:
        """Whether its verdicts on `task` may need a worker process (default: never)."""
        return False

    def needs_worker(self, task: ScoredTask, reply: ReplyText, gold: str) -> bool:
        """Whether this reply's verdict does, asked only where `pooled_for(task)` (default: yes)."""
        return True

    def shipped(self, task: ScoredTask, reply: ReplyText) -> Any:
        """What of `reply` goes to the worker (default: the reply)."""
        return reply

    def score_shipped(self, task: ScoredTask, shipped: Any, gold: str) -> Verdict:
        """The verdict from what `shipped` gave, in the worker (default: `score`)."""
        verdict: Verdict = self.score(task, shipped, gold)
        return verdict


@dataclass(frozen=True)
class StrictScorer(Scorer):
    name: str = "strict"
    version: str = "3"
    recording: bool = True

    def score(self, spec: ScoredTask, reply: ReplyText, gold: str) -> Verdict:
        return strict_verdict(
            spec.answer, reply.content, reply.finish_reason, gold, reply.state, reply.tool_calls
        )

    def version_for(self, spec: ScoredTask) -> str:
        return f"{self.version}/{spec.scoring_version}"

    def pooled_for(self, task: ScoredTask) -> bool:
        """A pooled answer kind (symbolic maths, IFEval's instructions, code)."""
        return task.answer.pooled

    def needs_worker(self, task: ScoredTask, reply: ReplyText, gold: str) -> bool:
        """A pooled kind's finished reply, unless the kind's `quick_matches` decides its answer
        at once. Empty and cut-off replies are never parsed: their verdict is the state's."""
        kind = task.answer
        if not kind.pooled:
            return False
        read = reply_state(reply.content, reply.finish_reason, reply.tool_calls)
        if read.state != "finished":
            return False
        if kind.judges_whole_reply:
            return True
        found = kind.find(fold_width(read.visible))
        return (
            found is not None and found.readable and kind.quick_matches(found.answer, gold) is None
        )

    def shipped(self, task: ScoredTask, reply: ReplyText) -> ReplyText:
        """Strict never reads the reasoning: a long one is not pickled."""
        return ReplyText(reply.content, None, reply.finish_reason, reply.state, reply.tool_calls)

    def score_shipped(self, task: ScoredTask, shipped: ReplyText, gold: str) -> Verdict:
        return self.score(task, shipped, gold)


@dataclass(frozen=True)
class LenientScorer(Scorer):
    name: str = "lenient"
    version: str = "3"
    recording: bool = True

    def score(self, spec: ScoredTask, reply: ReplyText, gold: str) -> Verdict:
        if spec.answer.judges_tool_calls:
            # BFCL's own runner: the parsed calls, whatever the finish_reason; none are wrong
            # (an irrelevance question's correct answer).
            verdict = spec.answer.judge_calls(reply.tool_calls, gold)
            return verdict if verdict.status in ("correct", "wrong") else Verdict("wrong")
        return lenient_verdict(spec.lenient, reply.content, reply.reasoning, gold)

    def version_for(self, spec: ScoredTask) -> str:
        return f"{self.version}/{spec.lenient}"

    def pooled_for(self, task: ScoredTask) -> bool:
        """A rule that runs Math-Verify, IFEval's checkers or the program on the whole reply."""
        return task.lenient in SLOW_RULES

    def shipped(self, task: ScoredTask, reply: ReplyText) -> str:
        """Only the text AISBench scores (`lenient_text`), not the whole reasoning."""
        return lenient_text(reply.content, reply.reasoning)

    def score_shipped(self, task: ScoredTask, shipped: str, gold: str) -> Verdict:
        return lenient_text_verdict(task.lenient, shipped, gold)


STRICT = StrictScorer()
LENIENT = LenientScorer()
_NAME = re.compile(r"[a-z][a-z0-9_]*")
MAX_RECORDING = 16  # the sample browser keeps two bits per recording scorer in an int32


@dataclass(frozen=True)
class ScorerSet:
    """The scorers in effect, in order: strict first (the protocol's), then the others."""

    scorers: tuple[Scorer, ...]

    def __post_init__(self) -> None:
        for scorer in self.scorers:
            if not isinstance(scorer, Scorer):
                raise TypeError(f"{scorer!r} is no scorer: subclass thinkeval.scoring.Scorer")
        names = [scorer.name for scorer in self.scorers]
        if not names or names[0] != STRICT.name:
            raise ValueError("a scorer set starts with the strict scorer")
        if len(set(names)) != len(names):
            raise ValueError(f"scorer names repeat: {', '.join(names)}")
        for name in names:
            if not _NAME.fullmatch(name) or name == "judge":
                raise ValueError(
                    f"scorer name {name!r}: lower-case letters, digits and _, starting with a "
                    "letter (it names JSON keys and CSV columns), and not 'judge' (the judge "
                    "model's, `thinkeval judge`)"
                )
        if sum(scorer.recording for scorer in self.scorers) > MAX_RECORDING:
            raise ValueError(f"at most {MAX_RECORDING} recording scorers (the report's columns)")
        # Read per reply: kept, not recomputed.
        object.__setattr__(self, "recording", tuple(s for s in self.scorers if s.recording))

    # The recording scorers, in order (set from `scorers`).
    recording: tuple[Scorer, ...] = field(init=False, repr=False, compare=False, default=())

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(scorer.name for scorer in self.scorers)

    def get(self, name: str) -> Scorer | None:
        for scorer in self.scorers:
            if scorer.name == name:
                return scorer
        return None

    def adding(self, scorer: Scorer) -> ScorerSet:
        """This set with `scorer` after the others."""
        if self.get(scorer.name) is not None:
            raise ValueError(f"a scorer named {scorer.name!r} is registered already")
        return ScorerSet((*self.scorers, scorer))


BUILT_IN = ScorerSet((STRICT, LENIENT))
# The built-in scorers by name, in order (what `thinkeval.score` offers without registering).
SCORERS: dict[str, Scorer] = {scorer.name: scorer for scorer in BUILT_IN.scorers}
_process = BUILT_IN  # `register_scorer`'s, for the whole process
_scoped: ContextVar[ScorerSet | None] = ContextVar("thinkeval_scorers", default=None)


def active_scorers() -> ScorerSet:
    """The scorers in effect here: a `registered` block's, else the process's."""
    return _scoped.get() or _process


def recording_scorers() -> tuple[Scorer, ...]:
    """The recording scorers in effect, in order (strict first). `Outcome.correct` and the
    counts are aligned with it."""
    return (_scoped.get() or _process).recording


def register_scorer(scorer: Scorer) -> None:
    """Add `scorer` for the rest of the process (a script's choice; tests use `registered`):
    a recording one is then scored, journalled, counted and reported with strict and lenient."""
    global _process
    _process = _process.adding(scorer)


def unregister_scorer(name: str) -> None:
    """Take a scorer `register_scorer` added out of the process's set again."""
    global _process
    if name in SCORERS:
        raise ValueError(f"{name!r} is built in")
    _process = ScorerSet(tuple(s for s in _process.scorers if s.name != name))


@contextmanager
def registered(*scorers: Scorer) -> Iterator[ScorerSet]:
    """`scorers` in effect for the `with` block only, in this context (its thread, and the
    asyncio tasks it starts): the set before it is back on leaving, whatever happened inside."""
    chosen = active_scorers()
    for scorer in scorers:
        chosen = chosen.adding(scorer)
    token = _scoped.set(chosen)
    try:
        yield chosen
    finally:
        _scoped.reset(token)


def get_scorer(name: str) -> Scorer:
    scorer = active_scorers().get(name)
    if scorer is None:
        names = ", ".join(active_scorers().names)
        raise ValueError(f"unknown scorer {name!r}: expected one of {names}")
    return scorer
