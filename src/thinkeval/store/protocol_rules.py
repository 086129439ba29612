"""The one judge of the protocol: which attempt counts, whether a retry is due, what the outcome is.

Every reader of a run asks this module, so resuming, `summary.json`, `thinkeval status`,
`thinkeval verify`, reports and imports can never disagree about a sample:

* `takes_over`: per (sample, repeat) and phase the first successful attempt counts; an `error`
  attempt counts only while nothing better is recorded (a later success replaces it).
* `retry_due`: a counted fixed attempt calls for the one adaptive retry when its reply state is
  `empty` or `unfinished`. The state is task-agnostic (`scoring.state`); an imported reply
  records the state judged at import, since its finish_reason is unknown.
* `judge_unit`: the whole decision for one (sample, repeat) from all of its journal lines,
  including what breaks the protocol (duplicates, unexpected retries, wrong budgets).
* `outcome_of`: an attempt's outcome as the numbers count it, reusing recorded verdicts when the
  scorer versions and the gold are current.

`store/counted.py` applies the same rules one journal line at a time in a few bytes per sample.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from thinkeval.records import Attempt, Phase, ReplyState, StoredVerdict, Verdict
from thinkeval.scoring.scorers import STRICT, ReplyText, recording_scorers, verdict_of
from thinkeval.scoring.state import RETRY_STATES, reply_state
from thinkeval.tasks.spec import TaskSpec

Where = TypeVar("Where")
PhaseState = Literal["recorded", "error", "missing"]


def first_successes(attempts: Iterable[Attempt]) -> Iterator[Attempt]:
    """The attempts that count, from a whole journal read in order: per (model, task, sample,
    repeat, phase) its first success (`takes_over`). It keeps 8 bytes per unit; a summary
    takes them in its counting pass instead (`results.folds`)."""
    seen: set[bytes] = set()
    for attempt in attempts:
        if attempt.error is not None:
            continue
        unit = f"{attempt.model}\x1f{attempt.task}\x1f{attempt.sample_id}\x1f{attempt.repeat}"
        key = hashlib.blake2b(f"{unit}\x1f{attempt.phase}".encode(), digest_size=8).digest()
        if key not in seen:
            seen.add(key)
            yield attempt


def takes_over(current_ok: bool | None, new_ok: bool) -> bool:
    """Whether a new attempt replaces the one counted so far in its phase (`current_ok` is None
    when nothing is counted yet): the first success counts, an error only until one comes.

    >>> takes_over(None, False), takes_over(False, True), takes_over(True, True)
    (True, True, False)
    """
    return current_ok is None or (not current_ok and new_ok)


def attempt_state(attempt: Attempt, spec: TaskSpec, gold: str) -> ReplyState | None:
    """The reply state of `attempt` (None for an error attempt).

    A recorded state wins; version-1 journals recorded none, so it is read from the text, and
    a version-1 import (finish_reason unknown) whose finished-looking reply has no legal final
    answer counts as `unfinished`: a cut-off reply looks exactly like that.
    """
    if attempt.error is not None:
        return None
    if attempt.state is not None:
        return attempt.state
    state = reply_state(
        attempt.content, attempt.finish_reason, attempt.calls, isinstance(attempt.unparsed, str)
    ).state
    if state == "finished" and attempt.imported_from is not None and attempt.finish_reason is None:
        reply = ReplyText.of(attempt)
        if STRICT.score(spec, reply, gold).status == "no_answer":
            return "unfinished"
    return state


def retry_due(attempt: Attempt, spec: TaskSpec, gold: str) -> bool:
    """Whether a counted fixed `attempt` calls for the adaptive retry."""
    return attempt_state(attempt, spec, gold) in RETRY_STATES


@dataclass(frozen=True, slots=True)
class Line(Generic[Where]):
    """One journal line of one (sample, repeat), as the judge needs it; `where` locates it
    (a journal reference, or `file:line`)."""

    phase: Phase
    ok: bool
    budget: int
    retry_due: bool  # for a successful fixed attempt: its reply state is empty or unfinished
    where: Where


@dataclass
class UnitJudgement(Generic[Where]):
    """Everything the protocol says about one (sample, repeat)."""

    fixed: Line[Where] | None = None  # the counted fixed attempt (an error while no success)
    retry: Line[Where] | None = None
    duplicates: dict[Phase, list[Where]] = field(default_factory=dict)
    unexpected_retries: list[Where] = field(default_factory=list)
    wrong_budget: list[Line[Where]] = field(default_factory=list)

    @property
    def candidate(self) -> bool:
        """The fixed reply was empty or cut off: the retry is due."""
        return self.fixed is not None and self.fixed.ok and self.fixed.retry_due

    @property
    def fixed_state(self) -> PhaseState:
        return _phase_state(self.fixed)

    @property
    def retry_state(self) -> PhaseState | None:
        """None when no retry is due."""
        return _phase_state(self.retry) if self.candidate else None

    @property
    def complete(self) -> bool:
        """Every phase the protocol asks for has a successful attempt."""
        return self.fixed_state == "recorded" and self.retry_state in (None, "recorded")


def _phase_state(line: Line[Where] | None) -> PhaseState:
    if line is None:
        return "missing"
    return "recorded" if line.ok else "error"


def judge_unit(lines: Iterable[Line[Where]], budgets: tuple[int, int]) -> UnitJudgement[Where]:
    """Judge one (sample, repeat) from its journal lines, in journal order.

    >>> fixed = Line("fixed", True, 2048, True, "main.jsonl:1")
    >>> retry = Line("retry", True, 8192, False, "main.jsonl:9")
    >>> judged = judge_unit([fixed, retry], (2048, 8192))
    >>> judged.candidate, judged.retry.where, judged.complete
    (True, 'main.jsonl:9', True)
    """
    judged: UnitJudgement[Where] = UnitJudgement()
    successes: dict[Phase, list[Where]] = {"fixed": [], "retry": []}
    retries: list[Line[Where]] = []
    for line in lines:
        if line.budget != budgets[0 if line.phase == "fixed" else 1]:
            judged.wrong_budget.append(line)
        if line.ok:
            successes[line.phase].append(line.where)
        if line.phase == "fixed":
            if takes_over(None if judged.fixed is None else judged.fixed.ok, line.ok):
                judged.fixed = line
        else:
            retries.append(line)
    # Whether a retry belongs depends on the fixed attempt that counts, wherever it is.
    if judged.candidate:
        for line in retries:
            if takes_over(None if judged.retry is None else judged.retry.ok, line.ok):
                judged.retry = line
    else:
        judged.unexpected_retries = [line.where for line in retries]
    for phase, found in successes.items():
        if len(found) > 1 and (phase == "fixed" or judged.candidate):
            judged.duplicates[phase] = found
    return judged


def line_of(attempt: Attempt, spec: TaskSpec, gold: str, where: Where) -> Line[Where]:
    """The judge's view of one journal line."""
    due = attempt.phase == "fixed" and attempt.ok and retry_due(attempt, spec, gold)
    return Line(attempt.phase, attempt.final, attempt.budget, due, where)


# Outcomes ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    """One phase of one (sample, repeat), reduced to what the numbers need."""

    status: str  # a strict verdict status, "error", or "refused"
    # Per recording scorer, in registry order (`scoring.scorers.recording_scorers`): whether it
    # counts the reply correct (empty for a transport error or a refusal).
    correct: tuple[bool, ...]
    completion_tokens: int | None
    answer: str | None = None  # the strict scorer's extracted answer (majority votes)

    def correct_by(self, scorer: str) -> bool:
        """Whether the recording scorer named `scorer` counts the reply correct."""
        for each, correct in zip(recording_scorers(), self.correct, strict=False):
            if each.name == scorer:
                return correct
        return False


@dataclass(frozen=True, slots=True)
class Scored:
    """An attempt's outcome with the verdicts behind it, per recording scorer's name (empty for
    a transport error)."""

    outcome: Outcome
    verdicts: dict[str, Verdict]

    @property
    def strict(self) -> Verdict | None:
        return self.verdicts.get(STRICT.name)


def score_attempt(
    attempt: Attempt, spec: TaskSpec, gold: str, given: dict[str, Verdict] | None = None
) -> Scored:
    """Score one attempt with every recording scorer, applying the run-level rules once.

    `given` holds verdicts already computed, by scorer name (those of scorers that need a
    worker, scored in a batch by `scoring.pooled.many_verdicts`, or recorded and current)."""
    tokens = attempt.usage.completion_tokens
    if attempt.refused is not None:  # a permanent refusal: neither an answer nor an error
        return Scored(Outcome("refused", (), tokens), {})
    if attempt.error is not None:
        return Scored(Outcome("error", (), tokens), {})
    state = attempt_state(attempt, spec, gold)
    reply = ReplyText.of(attempt, state)
    known = given or {}
    verdicts: dict[str, Verdict] = {}
    for scorer in recording_scorers():
        verdict = known.get(scorer.name) or verdict_of(scorer, spec, reply, gold)
        verdicts[scorer.name] = verdict
    first = verdicts[STRICT.name]
    correct = tuple(verdict.status == "correct" for verdict in verdicts.values())
    return Scored(Outcome(first.status, correct, tokens, first.answer), verdicts)


def outcome_of(
    attempt: Attempt, spec: TaskSpec, gold: str, given: dict[str, Verdict] | None = None
) -> Outcome:
    """The attempt's outcome; the recorded verdicts are reused when the current scorer versions
    gave them against this gold (scoring again would give the same), else it is scored again
    (with `given` as the verdicts of the scorers named there: see `recorded_is_current`)."""
    if attempt.error is None and attempt.judged_against(gold):
        # Per reply: one pass over the recorded verdicts, no dict built unless one is stale.
        recorded = attempt.verdicts
        correct: list[bool] = []
        stale = False
        for scorer in recording_scorers():
            each = recorded.get(scorer.name)
            if each is None or each.version != scorer.version_for(spec):
                stale = True
                break
            correct.append(each.status == "correct")
        if not stale:
            first = recorded[STRICT.name]
            tokens = attempt.usage.completion_tokens
            return Outcome(first.status, tuple(correct), tokens, first.answer)
        current: dict[str, Verdict] = {}
        for scorer in recording_scorers():
            each = _current(attempt, scorer.name, scorer.version_for(spec))
            if each is not None:
                current[scorer.name] = Verdict(each.status, each.answer, each.rule)
        return score_attempt(attempt, spec, gold, {**current, **(given or {})}).outcome
    return score_attempt(attempt, spec, gold, given).outcome


def recorded_is_current(attempt: Attempt, spec: TaskSpec, gold: str) -> bool:
    """Whether `outcome_of` can reuse the attempt's recorded verdicts. Readers of many attempts
    of a task some scorer pools (`scoring.pooled.task_pools`) score the others together first
    (`scoring.pooled.many_verdicts`) and pass each result to `outcome_of`."""
    if attempt.error is not None:
        return True
    return attempt.judged_against(gold) and all(
        _current(attempt, scorer.name, scorer.version_for(spec)) is not None
        for scorer in recording_scorers()
    )


def recorded_scored(attempt: Attempt, spec: TaskSpec) -> Scored | None:
    """The attempt's outcome and verdicts without its gold: a transport error or a refusal, or a
    reply with a recorded state whose every recording scorer's verdict is current; None where
    the gold is needed. The caller knows the verdicts were judged against the gold (a long
    one's digest: `Attempt.gold_digest`), so a reader need not hold a code task's tests."""
    tokens = attempt.usage.completion_tokens
    if attempt.refused is not None:
        return Scored(Outcome("refused", (), tokens), {})
    if attempt.error is not None:
        return Scored(Outcome("error", (), tokens), {})
    if attempt.state is None:
        return None
    verdicts: dict[str, Verdict] = {}
    for scorer in recording_scorers():
        each = _current(attempt, scorer.name, scorer.version_for(spec))
        if each is None:
            return None
        verdicts[scorer.name] = Verdict(each.status, each.answer, each.rule)
    first = verdicts[STRICT.name]
    correct = tuple(verdict.status == "correct" for verdict in verdicts.values())
    return Scored(Outcome(first.status, correct, tokens, first.answer), verdicts)


def _current(attempt: Attempt, scorer: str, version: str) -> StoredVerdict | None:
    stored = attempt.verdicts.get(scorer)
    return stored if stored is not None and stored.version == version else None


def recorded_verdicts(spec: TaskSpec, reply: ReplyText, gold: str) -> dict[str, StoredVerdict]:
    """The verdicts of every recording scorer, scored here, as an attempt stores them (a run
    scores in the pool where a scorer needs a worker: `stored_verdicts` of its verdicts)."""
    return stored_verdicts(
        spec, {scorer.name: verdict_of(scorer, spec, reply, gold) for scorer in recording_scorers()}
    )


def stored_verdicts(spec: TaskSpec, verdicts: dict[str, Verdict]) -> dict[str, StoredVerdict]:
    """`verdicts` (by recording scorer) as an attempt stores them, each with its version."""
    out: dict[str, StoredVerdict] = {}
    for scorer in recording_scorers():
        verdict = verdicts[scorer.name]
        out[scorer.name] = StoredVerdict(
            status=verdict.status,
            answer=verdict.answer,
            rule=verdict.rule,
            version=scorer.version_for(spec),
        )
    return out


def adaptive_outcome(
    fixed: Outcome | None, retry: Outcome | None, candidate: bool
) -> Outcome | None:
    """The outcome after the adaptive phase: the retry's when one was due (None while it is
    pending), else the fixed one."""
    return retry if candidate else fixed
