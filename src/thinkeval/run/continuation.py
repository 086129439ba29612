"""`retry: continue`: the adaptive retry of a cut-off reply carried on from its own tokens.

The fixed request asked for token ids (`client/continuation.py`); the fixed attempt keeps them
in the journal when its reply calls for the retry. The retry is then one `/v1/completions`
request with those ids as the prompt and `max_tokens = B2 - tokens generated`, and its attempt
is the joined reply: the fixed reply's text followed by the continuation's, split at
`</think>`, usage counting the whole reply (the prompt once, every generated token), and a
`Continuation` record saying what the server was asked and generated. Both lines are in the
journal, so a run killed between the two requests resumes by sending only the continuation.

A fixed reply in a retry state that stopped on its own (an empty answer) would generate nothing
more at a larger budget: its retry is the same reply, recorded without a request.
"""

from __future__ import annotations

import time

import msgspec

from thinkeval.client.continuation import ask_token_ids, continuation_body, join
from thinkeval.client.dispatch import Dispatcher, Outcome
from thinkeval.client.endpoint import Endpoint, RequestFailed, Timed
from thinkeval.client.replicas import prompt_affinity
from thinkeval.config import ModelConfig, ResolvedTask
from thinkeval.config.models import Retry
from thinkeval.generation import GenerationSettings
from thinkeval.records import Attempt, Continuation, Reply, Usage
from thinkeval.run.attempts import Unit, attempt_from
from thinkeval.tasks.spec import TaskSpec

__all__ = [
    "ask_token_ids",
    "continue_attempt",
    "probe_continuation",
    "probe_token_ids",
    "retry_mode",
]

_PROBE = [{"role": "user", "content": "Say OK."}]


def retry_mode(model: ModelConfig, task: ResolvedTask) -> Retry:
    """How `model` retries the cut-off replies of a task: the task's `retry`, else the model's."""
    return task.retry or model.retry


async def probe_continuation(endpoint: Endpoint, model: str) -> str | None:
    """Ask one tiny chat request for token ids and continue it by one token; None when both
    work, else why `retry: continue` cannot run against this server."""
    body = endpoint.profile.request(model, _PROBE, 1, GenerationSettings(), False)
    ask_token_ids(body)
    try:
        reply = (await endpoint.chat(body)).reply
    except RequestFailed as exc:
        return f"a chat request asking for token ids failed: {exc.message}"
    if reply.prompt_token_ids is None or reply.token_ids is None:
        return "the server returns no token ids (`return_token_ids` needs vLLM 0.10.2+)"
    try:
        await endpoint.completions(
            continuation_body(model, reply.prompt_token_ids, [], 1, GenerationSettings())
        )
    except RequestFailed as exc:
        return f"/v1/completions with a token-id prompt failed: {exc.message}"
    return None


async def probe_token_ids(dispatcher: Dispatcher) -> str | None:
    """`probe_continuation` at every endpoint of the model (replicas may differ)."""
    for endpoint in dispatcher.endpoints:
        why = await probe_continuation(endpoint, dispatcher.config.served_model)
        if why is not None:
            return f"{endpoint.base_url}: {why}"
    return None


def _room(
    budget: int, prompt: int, carried: int, max_model_len: int | None
) -> tuple[int, int | None]:
    """`max_tokens` of the continuation, and the budget when the context clamped it."""
    wanted = budget - carried
    if max_model_len is not None and 0 < max_model_len - prompt - carried < wanted:
        return max_model_len - prompt - carried, budget
    return wanted, None


async def continue_attempt(
    model: ModelConfig,
    spec: TaskSpec,
    unit: Unit,
    fixed: Attempt,
    generation: GenerationSettings,
    dispatcher: Dispatcher,
    max_model_len: int | None,
    shard: str | None,
) -> Attempt:
    """The retry attempt of `fixed`, carried on from its tokens up to `unit.budget` in all."""
    prompt, ids = fixed.prompt_token_ids, fixed.token_ids
    if fixed.finish_reason == "length" and (prompt is None or ids is None):
        return Attempt(
            model=model.name,
            task=fixed.task,
            sample_id=fixed.sample_id,
            repeat=fixed.repeat,
            phase="retry",
            budget=unit.budget,
            max_tokens=0,
            started_at=time.time(),
            tries=0,
            error="the fixed reply has no token ids to continue from (it was asked without "
            "retry: continue); continue needs them",
            error_kind="refused",
            shard=shard,  # resuming a re-ask run as continue is refused
        )
    carried = len(ids or [])
    max_tokens, clamped_from = _room(unit.budget, len(prompt or []), carried, max_model_len)
    if fixed.finish_reason != "length" or prompt is None or ids is None or max_tokens < 1:
        # Stopped on its own, or nothing more fits: the retry is the same reply.
        return msgspec.structs.replace(
            fixed,
            phase="retry",
            budget=unit.budget,
            prompt_token_ids=None,
            token_ids=None,
            continuation=Continuation(from_tokens=carried, requested=False),
            request={},
            tries=0,
            started_at=time.time(),
            latency_s=None,
            ttft_s=None,
        )
    body = continuation_body(model.served_model, prompt, ids, max_tokens, generation)
    shown = {k: v for k, v in body.items() if k != "prompt"}
    shown["prompt"] = f"prompt_token_ids + token_ids of the fixed attempt ({len(body['prompt'])})"
    # The replica that generated the fixed reply holds its tokens in its prefix cache.
    affinity = prompt_affinity(fixed.task, fixed.sample_id)
    outcome = await dispatcher.chat(body, completion=True, affinity=affinity)
    record = Continuation(from_tokens=carried)
    if outcome.timed is not None:
        more = outcome.timed.reply.usage
        record = Continuation(
            from_tokens=carried,
            prompt_tokens=more.prompt_tokens,
            completion_tokens=more.completion_tokens,
        )
        outcome = _joined(fixed, outcome.timed, outcome)
    attempt = await attempt_from(
        model.name, spec, unit, shown, max_tokens, clamped_from, outcome, shard
    )
    return msgspec.structs.replace(attempt, continuation=record)


def _joined(fixed: Attempt, timed: Timed, outcome: Outcome) -> Outcome:
    """The outcome as if one request had generated the fixed reply and its continuation."""
    more = timed.reply
    reasoning, content = join(fixed.reasoning, fixed.content, more.content or "")
    carried = len(fixed.token_ids or [])
    new = more.usage.completion_tokens
    generated = None if new is None else carried + new
    whole = Reply(
        content=content,
        reasoning=reasoning,
        finish_reason=more.finish_reason,
        usage=Usage(prompt_tokens=fixed.usage.prompt_tokens, completion_tokens=generated),
        http_status=more.http_status,
        served_model=more.served_model,
    )
    joined = Timed(whole, timed.latency_s, timed.ttft_s)
    return Outcome(joined, None, outcome.tries, outcome.endpoint, outcome.started_at)
