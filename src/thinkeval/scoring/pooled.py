"""Which verdicts are given in the scoring pool (`scoring.pool`), and the verdicts.

A scorer says by its own methods (`Scorer.pooled_for`, `Scorer.needs_worker`) whether its verdict
on a reply needs a worker process: the strict scorer for a pooled answer kind's finished reply
that the kind cannot decide at once, the lenient one for a rule that runs Math-Verify, IFEval's
checkers or the program. The scorers that need one for a reply are scored there together, in
one call within the time limit, from what each ships (`Scorer.shipped`); every other verdict is
given where it is, in microseconds. No scorer is named here: a recording scorer that declares
`pooled_for` is pooled like strict and lenient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from thinkeval.records import Verdict
from thinkeval.scoring.scorers import (
    ReplyText,
    ScoredTask,
    Scorer,
    TaskScoring,
    recording_scorers,
    verdict_of,
)

if TYPE_CHECKING:
    # Imported where a reply needs a worker: a run that never does (GSM8K's number kind, say)
    # loads no multiprocessing machinery.
    from thinkeval.scoring.pool import ScoringPool

# One reply to score: its task, the reply, the gold.
Job = tuple[ScoredTask, ReplyText, str]
# What a worker call gets: the task, each scorer with what it shipped, the gold.
_Shipment = tuple[TaskScoring, tuple[tuple[Scorer, Any], ...], str]


def task_pools(task: ScoredTask, scorers: Sequence[Scorer] | None = None) -> bool:
    """Whether some reply to `task` may need a worker (some scorer's `pooled_for`): readers of
    many replies score those together beforehand."""
    return any(scorer.pooled_for(task) for scorer in scorers or recording_scorers())


def _worker_verdicts(
    task: TaskScoring, shipment: tuple[tuple[Scorer, Any], ...], gold: str
) -> dict[str, Verdict]:
    """In a worker: each scorer's verdict from what it shipped."""
    return {scorer.name: scorer.score_shipped(task, what, gold) for scorer, what in shipment}


def _split(
    scorers: Sequence[Scorer], task: ScoredTask, reply: ReplyText, gold: str
) -> tuple[dict[str, Verdict], _Shipment | None]:
    """The verdicts given here, and what goes to a worker (None: nothing)."""
    here: dict[str, Verdict] = {}
    away: list[tuple[Scorer, Any]] = []
    for scorer in scorers:
        pooled = not reply.unparsed and scorer.pooled_for(task)
        if pooled and scorer.needs_worker(task, reply, gold):
            away.append((scorer, scorer.shipped(task, reply)))
        else:
            here[scorer.name] = verdict_of(scorer, task, reply, gold)
    return here, ((TaskScoring.of(task), tuple(away), gold) if away else None)


def _limit(task: ScoredTask, shipment: _Shipment) -> float | None:
    """The time limit of a worker call: the longest the kind or a shipped scorer asks for."""
    asked = [task.answer.time_limit_s]
    asked += [scorer.time_limit_s for scorer, _ in shipment[1]]
    return max((limit for limit in asked if limit), default=None)


def _merged(
    scorers: Sequence[Scorer], here: dict[str, Verdict], away: dict[str, Verdict] | str
) -> dict[str, Verdict]:
    """Every scorer's verdict in `scorers`' order; `away` is the worker's, or why it gave none
    (each verdict it owed is then `no_answer`, its rule saying why)."""
    out = {}
    for scorer in scorers:
        verdict = here.get(scorer.name)
        if verdict is None:
            found = away.get(scorer.name) if isinstance(away, dict) else None
            verdict = found or Verdict("no_answer", rule=f"timeout: {away}")
        out[scorer.name] = verdict
    return out


async def pooled_verdicts(
    task: ScoredTask,
    reply: ReplyText,
    gold: str,
    pool: ScoringPool | None = None,
    scorers: Sequence[Scorer] | None = None,
) -> dict[str, Verdict]:
    """The verdicts of `scorers` (the recording scorers in effect) on `reply`, by name, those
    that need one computed in a worker process within the time limit."""
    scorers = scorers or recording_scorers()
    here, shipment = _split(scorers, task, reply, gold)
    if shipment is None:
        return here
    from thinkeval.scoring.pool import missing, shared_pool

    limit = _limit(task, shipment)
    result = await (pool or shared_pool()).acall(_worker_verdicts, *shipment, limit_s=limit)
    why = missing(result)
    return _merged(scorers, here, why if why is not None else result)


def many_verdicts(
    jobs: Sequence[Job], pool: ScoringPool | None = None, scorers: Sequence[Scorer] | None = None
) -> list[dict[str, Verdict]]:
    """The verdicts of many replies, in order, scored in parallel (in the workers where they
    need one)."""
    scorers = scorers or recording_scorers()
    split = [_split(scorers, *job) for job in jobs]
    away = [i for i, (_, shipment) in enumerate(split) if shipment is not None]
    results: dict[int, dict[str, Verdict] | str] = {}
    if away:
        from thinkeval.scoring.pool import missing, shared_pool

        shipments: list[_Shipment] = []
        limits: list[float] = []
        for i in away:
            shipment = split[i][1]
            assert shipment is not None
            shipments.append(shipment)
            limits.append(_limit(jobs[i][0], shipment) or 0.0)
        limit = max(limits) or None
        answers = (pool or shared_pool()).map(_worker_verdicts, shipments, limit_s=limit)
        for i, answer in zip(away, answers, strict=True):
            why = missing(answer)
            results[i] = why if why is not None else answer
    return [
        _merged(scorers, here, results[i]) if i in results else here
        for i, (here, _) in enumerate(split)
    ]
