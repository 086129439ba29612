"""The journal line a request becomes: the unit asked, the request as sent (without the prompt),
the normalised reply or the failure, timings, and the verdicts of every recording scorer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from thinkeval.client.dispatch import Outcome
from thinkeval.client.replies import RequestFailed
from thinkeval.records import (
    Abandoned,
    Attempt,
    Phase,
    Reply,
    Sample,
    StoredVerdict,
    Usage,
    journal_gold,
)
from thinkeval.scoring.pooled import pooled_verdicts
from thinkeval.scoring.scorers import ReplyText
from thinkeval.scoring.state import RETRY_STATES, reply_state
from thinkeval.store.protocol_rules import stored_verdicts
from thinkeval.tasks.spec import TaskSpec

# The server's words an unparsed reply keeps: its error line, as long as a reply's error may be.
UNPARSED_MAX_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Unit:
    """What one request asked: a sample, which repeat of it, in which phase, at which budget."""

    sample: Sample
    repeat: int
    phase: Phase
    budget: int


async def verdicts_for(spec: TaskSpec, reply: Reply, gold: str) -> dict[str, StoredVerdict]:
    """The recording scorers' verdicts on `reply`, as an attempt stores them. A scorer whose
    checks can take long or hang (`pooled_for`) is scored in a worker process with a time
    limit, never on the event loop (`scoring.pooled`)."""
    text = ReplyText(
        reply.content, reply.reasoning, reply.finish_reason, tool_calls=reply.tool_calls
    )
    return stored_verdicts(spec, await pooled_verdicts(spec, text, gold))


async def unparsed_attempt(
    common: dict[str, Any], spec: TaskSpec, sample: Sample, failure: RequestFailed
) -> Attempt:
    """The model finished, but the server could not deliver its output in its format
    (`unparsed_output`): a reply without content, journalled with the server's words (capped),
    `finished` and scored `no_answer` by rule `server-unparsed`, so it is never asked again.
    A reply, not an error, so journals without such a line read exactly as before."""
    text = ReplyText(None, None, None, unparsed=True)
    gold, digest = journal_gold(sample.gold)
    return Attempt(
        **common,
        http_status=failure.http_status,
        unparsed=failure.message[:UNPARSED_MAX_CHARS],
        usage=Usage(prompt_tokens=failure.prompt_tokens),
        state=reply_state(None, None, unparsed=True).state,
        gold=gold,
        gold_digest=digest,
        verdicts=stored_verdicts(spec, await pooled_verdicts(spec, text, sample.gold)),
    )


async def attempt_from(
    model: str,
    spec: TaskSpec,
    unit: Unit,
    body: dict[str, Any],
    max_tokens: int,
    clamped_from: int | None,
    outcome: Outcome,
    shard: str | None,
) -> Attempt:
    """The attempt `outcome` of the request `body` stands for (an error attempt for a failure)."""
    sample = unit.sample
    common: dict[str, Any] = {
        "model": model,
        "task": sample.task,
        "sample_id": sample.id,
        "repeat": unit.repeat,
        "phase": unit.phase,
        "budget": unit.budget,
        "max_tokens": max_tokens,
        "clamped_from": clamped_from,
        "request": {k: v for k, v in body.items() if k != "messages"},
        "endpoint": outcome.endpoint,
        "tries": outcome.tries,
        "started_at": outcome.started_at,
        "shard": shard,
        "abandoned": [Abandoned(reason=reason, at=at) for reason, at in outcome.abandoned],
    }
    if outcome.timed is None:
        assert outcome.failure is not None
        if outcome.failure.kind == "unparsed_output":
            return await unparsed_attempt(common, spec, sample, outcome.failure)
        return Attempt(
            **common,
            http_status=outcome.failure.http_status,
            error=outcome.failure.message,
            error_kind=outcome.failure.kind,
            refused=outcome.failure.refused,
            window=outcome.failure.window,
            usage=Usage(prompt_tokens=outcome.failure.prompt_tokens),
        )
    reply = outcome.timed.reply
    state = reply_state(reply.content, reply.finish_reason, reply.tool_calls).state
    if state in RETRY_STATES and reply.finish_reason == "length" and reply.token_ids is not None:
        # Asked for (`retry: continue`): what its continuation resends. Other replies drop them.
        common["prompt_token_ids"] = reply.prompt_token_ids
        common["token_ids"] = reply.token_ids
    gold, digest = journal_gold(sample.gold)
    return Attempt(
        **common,
        content=reply.content,
        reasoning=reply.reasoning,
        reasoning_in_content=reply.reasoning_in_content,
        finish_reason=reply.finish_reason,
        tool_calls=reply.tool_calls or msgspec.UNSET,
        usage=reply.usage,
        http_status=reply.http_status,
        latency_s=outcome.timed.latency_s,
        ttft_s=outcome.timed.ttft_s,
        state=state,
        gold=gold,
        gold_digest=digest,
        verdicts=await verdicts_for(spec, reply, sample.gold),
    )
