"""The reply state, which alone decides the protocol: `empty`, `unfinished` or `finished`.

It is task-agnostic: a reply is `empty` when no content is left after any think block,
`unfinished` when it did not end normally or a `<think>` is still open, and `finished` otherwise.
Only `stop` (the model ended its turn) and a missing finish_reason (a server that leaves it out,
an imported reply, judged from its text) end a reply normally. Every other value is not the
model's finished answer: `length` (the token limit cut it), `repetition` (vLLM 0.20+'s repetition
detector: a loop, no worse than a cut-off; `diagnosis.reply_label` counts it apart), `abort` (the
engine dropped the request), `content_filter` (a provider's filter cut it), `tool_calls` /
`function_call` (the turn ended in a tool call, not an answer) and any value no server documents.
Their rule is `finish-<reason>`. Only `empty` and `unfinished` fixed replies are asked again.

A reply that made tool calls (`message.tool_calls`, from the server's tool parser) is not empty
whatever its content: it is `finished` when it ended normally (finish_reason `tool_calls`,
`function_call`, `stop` or none), `unfinished` otherwise (the token limit cut the call, ...).
Calls written only in the reasoning are no calls.

A reply the server could not deliver in its tool-call/reasoning format (llama.cpp's HTTP 500
"does not match the expected peg-native format": `unparsed`) is `finished`, rule
`server-unparsed`: the model ended its turn, so asking it again would give it a second chance
no other reply gets (and at temperature 0 the same output); it has no readable answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from thinkeval.records import ReplyState, ToolCall
from thinkeval.scoring.text import split_think

REPLY_STATES: tuple[ReplyState, ...] = ("empty", "unfinished", "finished")
# The finish reasons of a reply that ended as the model meant it to (None: not sent or not known).
NORMAL_FINISH: frozenset[str | None] = frozenset({"stop", None})
# A reply with parsed tool calls also ends normally on the tool-call finish reasons.
_TOOL_CALL_ENDS: frozenset[str | None] = NORMAL_FINISH | {"tool_calls", "function_call"}
RETRY_STATES: frozenset[str] = frozenset({"empty", "unfinished"})


class StateOfReply(NamedTuple):
    """The state, the text a scorer may read (after the last `</think>`), and why."""

    state: ReplyState
    visible: str
    rule: str | None


def reply_state(
    content: str | None,
    finish_reason: str | None,
    tool_calls: Sequence[ToolCall] | None = None,
    unparsed: bool = False,
) -> StateOfReply:
    """Classify a reply from its `content`, `finish_reason` and tool calls alone.

    >>> reply_state("<think>2+2</think>The answer is 4.", "stop").state
    'finished'
    >>> reply_state("The answer is 4", "length")
    StateOfReply(state='unfinished', visible='The answer is 4', rule='finish-length')
    >>> reply_state("So 4. So 4. So 4.", "repetition").rule
    'finish-repetition'
    >>> reply_state("The answer is 4.", "content_filter")
    StateOfReply(state='unfinished', visible='The answer is 4.', rule='finish-content_filter')
    >>> reply_state("   ", "stop").state
    'empty'
    >>> reply_state(None, "tool_calls", [ToolCall(name="f", arguments="{}")]).state
    'finished'
    >>> reply_state(None, None, unparsed=True)
    StateOfReply(state='finished', visible='', rule='server-unparsed')
    """
    if unparsed:
        return StateOfReply("finished", "", "server-unparsed")
    if tool_calls:
        visible, _ = split_think(content or "")
        if finish_reason not in _TOOL_CALL_ENDS:
            return StateOfReply("unfinished", visible, f"finish-{finish_reason}")
        return StateOfReply("finished", visible, None)
    if content is None:
        return StateOfReply("empty", "", "no-content")
    visible, unclosed = split_think(content)
    if not visible.strip():
        return StateOfReply("empty", "", "no-content")
    # A cut-off (or aborted, filtered, ...) reply's "The answer is 5" is not its final word.
    if finish_reason not in NORMAL_FINISH:
        return StateOfReply("unfinished", visible, f"finish-{finish_reason}")
    if unclosed:
        return StateOfReply("unfinished", visible, "unclosed-think")
    return StateOfReply("finished", visible, None)
