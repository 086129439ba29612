"""Which replies are judged in the scoring pool (`scoring.pool`), and their verdicts: a pooled
kind's finished reply the kind cannot decide at once, and every reply of a task whose lenient
rule runs Math-Verify. Everything else is judged where it is, in microseconds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from thinkeval.records import ReplyState, Verdict
from thinkeval.scoring.kinds import AnswerKind
from thinkeval.scoring.lenient import lenient_text, lenient_text_verdict, lenient_verdict
from thinkeval.scoring.scorers import ReplyText
from thinkeval.scoring.state import reply_state
from thinkeval.scoring.strict import strict_verdict
from thinkeval.scoring.text import fold_width

if TYPE_CHECKING:
    # Imported where a reply needs a worker: a run that never does (GSM8K's number kind, say)
    # loads no multiprocessing machinery.
    from thinkeval.scoring.pool import ScoringPool

# Lenient rules too slow for the event loop: Math-Verify on the whole reply (MATH-500's, as
# AISBench scores it), IFEval's checkers on it, and the code rule, which runs the program.
SLOW_LENIENT_RULES = frozenset({"math", "ifeval-loose", "code"})
# (answer kind, lenient rule, content, reasoning, finish_reason, gold, recorded reply state)
VerdictsJob = tuple[AnswerKind, str, str | None, str | None, str | None, str, ReplyState | None]
Verdicts = tuple[Verdict, Verdict]  # (strict, lenient)


def both_verdicts(
    kind: AnswerKind,
    rule: str,
    content: str | None,
    reasoning: str | None,
    finish_reason: str | None,
    gold: str,
    state: ReplyState | None,
) -> Verdicts:
    """The strict and the lenient verdict of one reply."""
    return (
        strict_verdict(kind, content, finish_reason, gold, state),
        lenient_verdict(rule, content, reasoning, gold),
    )


def _worker_verdicts(
    kind: AnswerKind,
    rule: str,
    content: str | None,
    text: str,
    finish_reason: str | None,
    gold: str,
    state: ReplyState | None,
) -> Verdicts:
    """`both_verdicts` in a worker, from the text the lenient scorer reads (`lenient_text`)
    instead of the reasoning: a long reasoning is not pickled unless that text is it."""
    return (
        strict_verdict(kind, content, finish_reason, gold, state),
        lenient_text_verdict(rule, text, gold),
    )


def _for_worker(job: VerdictsJob) -> tuple[Any, ...]:
    kind, rule, content, reasoning, finish_reason, gold, state = job
    return (kind, rule, content, lenient_text(content, reasoning), finish_reason, gold, state)


def _timed_out(why: str) -> Verdicts:
    verdict = Verdict("no_answer", rule=f"timeout: {why}")
    return verdict, verdict


def _needs_pool(job: VerdictsJob) -> bool:
    """Whether the reply's verdicts need a worker: a pooled kind's finished reply, unless the
    kind's `quick_matches` decides its answer (then it is judged here, in microseconds), and
    any reply of a task whose lenient rule runs Math-Verify. Empty and cut-off replies are never
    parsed by the strict scorer: their verdict is the reply state's."""
    kind, rule, content, _, finish_reason, gold, _ = job
    if not kind.pooled:
        return False
    if rule in SLOW_LENIENT_RULES:
        return True
    read = reply_state(content, finish_reason)
    if read.state != "finished":
        return False
    quick = getattr(kind, "quick_matches", None)
    if quick is None:
        return True
    found = kind.find(fold_width(read.visible))
    return found is not None and quick(found.answer, gold) is None


async def pooled_verdicts(
    kind: AnswerKind, rule: str, reply: ReplyText, gold: str, pool: ScoringPool | None = None
) -> Verdicts:
    """The strict and lenient verdicts of `reply`, computed in a worker process within the time
    limit when they need one (`_needs_pool`)."""
    job: VerdictsJob = (
        kind, rule, reply.content, reply.reasoning, reply.finish_reason, gold, reply.state
    )  # fmt: skip
    if not _needs_pool(job):
        return both_verdicts(*job)
    from thinkeval.scoring.pool import missing, shared_pool

    limit = getattr(kind, "time_limit_s", None)
    result = await (pool or shared_pool()).acall(_worker_verdicts, *_for_worker(job), limit_s=limit)
    why = missing(result)
    return _timed_out(why) if why is not None else result


def verdict_pairs(jobs: Sequence[VerdictsJob], pool: ScoringPool | None = None) -> list[Verdicts]:
    """The verdicts of many replies, scored in parallel (in the workers where they need one)."""
    pooled = [i for i, job in enumerate(jobs) if _needs_pool(job)]
    pairs: dict[int, Verdicts] = {}
    if pooled:
        from thinkeval.scoring.pool import missing, shared_pool

        shipped = [_for_worker(jobs[i]) for i in pooled]
        limit = max((getattr(jobs[i][0], "time_limit_s", 0.0) for i in pooled), default=0.0)
        results = (pool or shared_pool()).map(_worker_verdicts, shipped, limit_s=limit or None)
        for i, result in zip(pooled, results, strict=True):
            why = missing(result)
            pairs[i] = _timed_out(why) if why is not None else result
    return [pairs[i] if i in pairs else both_verdicts(*job) for i, job in enumerate(jobs)]
