"""Did the server keep to the thinking budget? The reasoning check of each model and task.

A model's `reasoning: {budget, effort}` is sent as its server flavour's fields
(client/reasoning_controls.py), and servers are known to accept such a field and silently drop it.
So the summary measures, per model and task, the reasoning length of every reply that counts (both
phases; transport errors and refusals have none): the server's `usage.reasoning_tokens` where it
reported them, else an estimate from the reasoning text (pieces that approximate a BPE tokenizer,
`diagnosis.pieces`). A reply is over the budget when its length passes

- `budget + SLACK_TOKENS` for server-counted tokens (the closing tag, a token of slack), or
- `budget × (1 + ESTIMATE_SLACK) + SLACK_TOKENS` for an estimate (pieces are within about a
  fifth of real tokens on English and digits),

and the verdict is `respected` (no reply over), `ignored` (some over), or `unchecked` (no
reply measured yet). An effort names no length: it is recorded and shown, never checked.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, Protocol

import msgspec

from thinkeval.client.reasoning_controls import SLACK_TOKENS, control_fields
from thinkeval.diagnosis.pieces import count as count_pieces
from thinkeval.records import Attempt
from thinkeval.results.folds import CountedReply
from thinkeval.store.protocol_rules import first_successes

if TYPE_CHECKING:
    from thinkeval.config import ModelConfig

ESTIMATE_SLACK = 0.25
Check = Literal["respected", "ignored", "unchecked", "effort_only"]
EFFORT_UNCHECKED = "no length check is possible for an effort (it names no length)"


class ReasoningBlock(msgspec.Struct, kw_only=True):
    """The reasoning controls one model was asked with on one task, and what its replies did."""

    budget: int | None = None  # thinking tokens asked (`reasoning.budget`)
    effort: str | None = None  # `reasoning.effort`: recorded, never checked
    budget_field: str | None = None  # the request field that carried the budget
    effort_field: str | None = None
    check: Check = "effort_only"
    replies: int = 0  # replies measured
    counted: int = 0  # of them, with the server's usage.reasoning_tokens
    estimated: int = 0  # of them, estimated from the reasoning text
    limit_counted: int | None = None  # a counted length above this is over the budget
    limit_estimated: int | None = None  # an estimated length above this is over the budget
    over: int = 0  # replies that reasoned past the budget
    p50: float | None = None  # reasoning length, tokens (or estimate)
    p90: float | None = None
    max: int | None = None


def limits(budget: int) -> tuple[int, int]:
    """(counted, estimated): the longest reasoning that still keeps to `budget`.

    >>> limits(1024)
    (1032, 1288)
    """
    return budget + SLACK_TOKENS, math.ceil(budget * (1 + ESTIMATE_SLACK)) + SLACK_TOKENS


class _Lengths:
    def __init__(self) -> None:
        self.counted: list[int] = []
        self.estimated: list[int] = []


class ReasoningFold:
    """The reasoning blocks folded one reply at a time: `add` each reply that counts (the
    summary's counting pass hands them over), `discard` a task whose pass is taken again, then
    `blocks`. Only models with reasoning controls are measured."""

    def __init__(self, models: Iterable[ModelConfig]) -> None:
        self.controlled = {m.name: m for m in models if m.reasoning is not None}
        self.cells: dict[tuple[str, str], _Lengths] = {}

    def add(self, reply: CountedReply) -> None:
        self.add_attempt(reply.attempt)

    def add_attempt(self, attempt: Attempt) -> None:
        """Fold one reply that counts."""
        if attempt.model not in self.controlled or attempt.error is not None:
            return
        cell = self.cells.setdefault((attempt.model, attempt.task), _Lengths())
        if attempt.refused is not None:
            return  # never generated: the task still shows, with nothing measured
        if attempt.usage.reasoning_tokens is not None:
            cell.counted.append(attempt.usage.reasoning_tokens)
        else:
            cell.estimated.append(count_pieces(attempt.reasoning or ""))

    def discard(self, task: str) -> None:
        for where in [where for where in self.cells if where[1] == task]:
            del self.cells[where]

    def blocks(self) -> dict[tuple[str, str], ReasoningBlock]:
        return {
            (model, task): _block(self.controlled[model], lengths)
            for (model, task), lengths in self.cells.items()
        }


def reasoning_blocks(
    attempts: Iterable[Attempt], models: Iterable[ModelConfig]
) -> dict[tuple[str, str], ReasoningBlock]:
    """The block of each (model, task) whose model has reasoning controls, from a journal's
    attempts (the first success per sample, repeat and phase counts, as everywhere). A summary
    folds in its counting pass instead (`ReasoningFold`)."""
    folded = ReasoningFold(models)
    if not folded.controlled:
        return {}
    for attempt in first_successes(a for a in attempts if a.model in folded.controlled):
        folded.add_attempt(attempt)
    return folded.blocks()


def _block(model: ModelConfig, lengths: _Lengths) -> ReasoningBlock:
    controls = model.reasoning
    assert controls is not None
    budget_field, effort_field = control_fields(model.api)
    block = ReasoningBlock(
        budget=controls.budget,
        effort=controls.effort,
        budget_field=budget_field if controls.budget is not None else None,
        effort_field=effort_field if controls.effort is not None else None,
    )
    every = lengths.counted + lengths.estimated
    block.replies, block.counted, block.estimated = (
        len(every),
        len(lengths.counted),
        len(lengths.estimated),
    )
    if every:
        ordered = sorted(every)
        block.p50 = statistics.median(ordered)
        block.p90 = ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]
        block.max = ordered[-1]
    if controls.budget is None:
        return block
    block.limit_counted, block.limit_estimated = limits(controls.budget)
    block.over = sum(n > block.limit_counted for n in lengths.counted) + sum(
        n > block.limit_estimated for n in lengths.estimated
    )
    if not every:
        block.check = "unchecked"
    else:
        block.check = "ignored" if block.over else "respected"
    return block


def _measured(block: ReasoningBlock) -> str:
    if block.estimated == 0:
        return "server-counted reasoning tokens"
    if block.counted == 0:
        return "estimated from the reasoning text: the server reported no reasoning_tokens"
    return f"{block.counted} server-counted, {block.estimated} estimated from the reasoning text"


def _length(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def verdict(block: ReasoningBlock) -> str:
    """One line saying what was asked and whether the replies kept to it.

    >>> verdict(ReasoningBlock(budget=1024, budget_field="thinking_token_budget",
    ...     check="ignored", replies=12, counted=12, over=5, p50=1830, p90=4000, max=4100))
    'budget 1024 (thinking_token_budget) ignored: 5 of 12 replies reasoned past 1024 tokens, \
p50 1830, p90 4000, max 4100 (server-counted reasoning tokens)'
    """
    parts = []
    if block.budget is not None:
        asked = f"budget {block.budget} ({block.budget_field})"
        spread = f"p50 {_length(block.p50)}, p90 {_length(block.p90)}, max {_length(block.max)}"
        if block.check == "unchecked":
            parts.append(f"{asked} unchecked: no reply measured yet")
        elif block.check == "ignored":
            parts.append(
                f"{asked} ignored: {block.over} of {block.replies} replies reasoned past "
                f"{block.budget} tokens, {spread} ({_measured(block)})"
            )
        else:
            parts.append(
                f"{asked} respected: all {block.replies} replies within {block.budget} tokens, "
                f"{spread} ({_measured(block)})"
            )
    if block.effort is not None:
        parts.append(f"effort {block.effort} ({block.effort_field}): {EFFORT_UNCHECKED}")
    return "; ".join(parts)


class _Result(Protocol):
    model: str
    task: str
    reasoning: ReasoningBlock | None


def budget_lines(results: Iterable[_Result]) -> list[str]:
    """One line per summary result with reasoning controls: what was asked, and the check
    (`thinkeval run` prints them at the end)."""
    return [
        f"{r.model} on {r.task}: reasoning {verdict(r.reasoning)}"
        for r in results
        if r.reasoning is not None
    ]
