"""A thinking budget as the simulated server applies it: the think block ends at the budget.

vLLM's `thinking_token_budget` and SGLang's `thinking_budget` make the engine close the think
block once the reasoning reaches the budget, and the model answers from there. The simulator
does the same to its plan, unless started with `--ignore-reasoning-budget`: then it accepts the
field and drops it, as servers are known to do (the run's reasoning check then says `ignored`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from thinkeval.sim.behaviour import Plan

# The request field each profile's server reads its thinking budget from.
BUDGET_FIELDS: dict[str, str | None] = {"sglang": "thinking_budget", "openai": None}
DEFAULT_FIELD = "thinking_token_budget"  # every vLLM era


def requested_budget(profile: str, body: dict[str, Any]) -> int | None:
    """The thinking budget a chat body asks of a `profile` server (None: none, or not a
    positive whole number)."""
    field = BUDGET_FIELDS.get(profile, DEFAULT_FIELD)
    value = body.get(field) if field is not None else None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def budgeted(plan: Plan, budget: int | None, ignore: bool = False) -> Plan:
    """`plan` with its reasoning ended at `budget` tokens (unchanged without a budget, or when
    the server `ignore`s it); a reasoning that never ended answers as it would without
    thinking."""
    if budget is None or ignore:
        return plan
    if plan.reasoning_len is not None and plan.reasoning_len <= budget:
        return plan
    answer = plan.answer if plan.reasoning_len is not None else plan.plain_answer
    return dataclasses.replace(
        plan, reasoning_len=budget, answer=answer, mention_at=min(plan.mention_at, budget // 2)
    )
