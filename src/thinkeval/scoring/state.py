"""The reply state, which alone decides the protocol: `empty`, `unfinished` or `finished`.

It is task-agnostic: a reply is `empty` when no content is left after any think block,
`unfinished` when the token limit cut it (`finish_reason == "length"`), vLLM's repetition
detector ended it (`finish_reason == "repetition"`, vLLM 0.20+: a loop, no worse than a cut-off
for the protocol; `diagnosis.reply_label` counts it apart) or a `<think>` is still open, and
`finished` otherwise. Only `empty` and `unfinished` fixed replies are asked again.

A reply that made tool calls (`message.tool_calls`, from the server's tool parser) is not empty
whatever its content: it is `finished` (finish_reason `tool_calls`, or `stop` with calls) unless
the token limit cut it. Calls written only in the reasoning are no calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from thinkeval.records import ReplyState, ToolCall
from thinkeval.scoring.text import split_think

REPLY_STATES: tuple[ReplyState, ...] = ("empty", "unfinished", "finished")
RETRY_STATES: frozenset[str] = frozenset({"empty", "unfinished"})


class StateOfReply(NamedTuple):
    """The state, the text a scorer may read (after the last `</think>`), and why."""

    state: ReplyState
    visible: str
    rule: str | None


def reply_state(
    content: str | None, finish_reason: str | None, tool_calls: Sequence[ToolCall] | None = None
) -> StateOfReply:
    """Classify a reply from its `content`, `finish_reason` and tool calls alone.

    >>> reply_state("<think>2+2</think>The answer is 4.", "stop").state
    'finished'
    >>> reply_state("The answer is 4", "length")
    StateOfReply(state='unfinished', visible='The answer is 4', rule='finish-length')
    >>> reply_state("So 4. So 4. So 4.", "repetition").rule
    'finish-repetition'
    >>> reply_state("   ", "stop").state
    'empty'
    >>> reply_state(None, "tool_calls", [ToolCall(name="f", arguments="{}")]).state
    'finished'
    """
    if tool_calls:
        visible, _ = split_think(content or "")
        if finish_reason in ("length", "repetition"):
            return StateOfReply("unfinished", visible, f"finish-{finish_reason}")
        return StateOfReply("finished", visible, None)
    if content is None:
        return StateOfReply("empty", "", "no-content")
    visible, unclosed = split_think(content)
    if not visible.strip():
        return StateOfReply("empty", "", "no-content")
    # A cut-off reply's "The answer is 5" is not its final word, so it is never scored.
    if finish_reason == "length":
        return StateOfReply("unfinished", visible, "finish-length")
    if finish_reason == "repetition":
        return StateOfReply("unfinished", visible, "finish-repetition")
    if unclosed:
        return StateOfReply("unfinished", visible, "unclosed-think")
    return StateOfReply("finished", visible, None)
