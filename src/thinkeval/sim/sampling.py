"""How the simulated server applies sampling and reasoning effort, and the switches that make it
misbehave the way real deployments do (what `thinkeval check --audit` must catch).

Honoured by default:

- a request without a seed gets the prompt's one reply (greedy, at temperature 0);
- `top_k: 1` is greedy, whatever the seed and temperature;
- `reasoning_effort` scales the reasoning: minimal 0.1, low 0.25, medium 0.5 of its length;
- a prompt that asks for something to be repeated forever loops (as real models do), so the
  repetition detector (`repetition_detection=1`) has something to end.

The misbehaviours (`SimConfig` switches, `thinkeval sim --ignore-temperature` ...):
`ignore_temperature` samples greedy requests afresh; `ignore_top_k` drops `top_k`;
`ignore_reasoning_effort` drops the effort; `batch_nondeterminism` makes greedy replies vary
while other requests are in flight (a server that is not batch-invariant);
`wrong_finish_at_limit` says `stop` for a reply cut at `max_tokens`; `drop_repetition` says
`stop` where the repetition detector ended a reply (a gateway that maps unknown finish reasons).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable

from thinkeval.sim.behaviour import Generation, Plan, generate
from thinkeval.sim.causes import shape
from thinkeval.sim.config import SimConfig
from thinkeval.sim.reasoning_budget import budgeted
from thinkeval.sim.requests import ChatRequest

EFFORT_SCALE: dict[str, float] = {"minimal": 0.1, "low": 0.25, "medium": 0.5}
_MIN_REASONING = 16
_REPEAT_FOREVER = re.compile(r"\brepeat\b.*\b(forever|endlessly|without stopping)\b", re.I | re.S)


def asks_to_repeat(text: str) -> bool:
    """Whether a prompt asks for endless repetition (the simulated model then loops)."""
    return bool(_REPEAT_FOREVER.search(text))


def plan_seed(
    config: SimConfig, seed: int | None, greedy: bool, top_k: int | None, others_in_flight: bool
) -> int | None:
    """The sampling seed the simulated model plans with (None: the prompt's greedy reply).

    A request's own seed still picks its plan at temperature 0 (as the simulator always did, so
    runs that send both keep their replies); only `top_k: 1` forces the greedy reply."""
    if top_k == 1 and not config.ignore_top_k:
        return None
    if greedy and (config.ignore_temperature or (config.batch_nondeterminism and others_in_flight)):
        return random.getrandbits(31)  # sampled as if the temperature were not 0
    return seed


def with_effort(config: SimConfig, plan: Plan, effort: str | None) -> Plan:
    """`plan` with its reasoning shortened as `effort` asks (unless the server ignores it)."""
    scale = EFFORT_SCALE.get(effort or "")
    if scale is None or config.ignore_reasoning_effort or plan.reasoning_len is None:
        return plan
    length = max(_MIN_REASONING, round(plan.reasoning_len * scale))
    return dataclasses.replace(plan, reasoning_len=length, mention_at=min(plan.mention_at, length))


def looping(plan: Plan) -> Plan:
    """`plan` as a reply whose reasoning never ends (the loop cause shapes it)."""
    return dataclasses.replace(plan, outcome="never", long=False, reasoning_len=None, answer="")


def reported_finish(config: SimConfig, gen: Generation, limit: int) -> Generation:
    """`gen` with the finish_reason a misbehaving server reports."""
    finish = gen.finish_reason
    if config.wrong_finish_at_limit and finish == "length" and gen.completion_tokens >= limit:
        finish = "stop"
    if config.drop_repetition and finish == "repetition":
        finish = "stop"
    return gen if finish == gen.finish_reason else dataclasses.replace(gen, finish_reason=finish)


def model_reply(
    config: SimConfig,
    planned: Callable[[str, str, int | None], Plan],
    chat: ChatRequest,
    others_in_flight: bool,
) -> Generation:
    """What the simulated model generates for `chat`: its plan (`planned(key, text, seed)`)
    under the request's sampling, effort and thinking budget, cut at its limit, shaped by its
    cause, with the finish_reason the server reports."""
    seed = plan_seed(config, chat.seed, chat.greedy, chat.top_k, others_in_flight)
    plan = with_effort(config, planned(chat.key, chat.text, seed), chat.effort)
    loops = asks_to_repeat(chat.text)
    if loops:
        plan = looping(plan)
    plan = budgeted(plan, chat.reasoning_budget, config.ignore_reasoning_budget)
    gen = generate(plan, chat.thinking, chat.limit)
    gen.tools = chat.tools
    gen = shape(config, plan, gen, chat.greedy, "loop" if loops else "")
    return reported_finish(config, gen, chat.limit)
