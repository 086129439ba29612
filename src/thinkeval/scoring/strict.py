"""The strict scorer: only a finished reply's explicit final answer counts."""

from __future__ import annotations

from collections.abc import Sequence

from thinkeval.records import ReplyState, ToolCall, Verdict
from thinkeval.scoring.kinds import AnswerKind
from thinkeval.scoring.state import reply_state
from thinkeval.scoring.text import fold_width


def strict_verdict(
    kind: AnswerKind,
    content: str | None,
    finish_reason: str | None,
    gold: str,
    state: ReplyState | None = None,
    tool_calls: Sequence[ToolCall] | None = None,
) -> Verdict:
    """Score the reply's `content` (never its reasoning) against `gold` with answer `kind`; a
    tool-calling kind (`judge_calls`) scores the reply's tool calls instead.

    `empty` or `unfinished` by the reply state (`scoring.state`); for a finished reply,
    `correct`/`wrong` for a legal final answer and `no_answer` without one, or when the kind
    could not compare the answer in time (`TimeoutError`: the rule says so). A recorded `state`
    (an imported reply whose cut-off was judged at import) overrides the one read from the text.

    >>> from thinkeval.scoring.kinds import make_kind
    >>> strict_verdict(make_kind("number"), "<think>2+2</think>The answer is 4.", "stop", "4")
    Verdict(status='correct', answer='4', rule='the answer is')
    """
    read = reply_state(content, finish_reason, tool_calls)
    if read.state != "finished":
        verdict = Verdict(read.state, rule=read.rule)
    elif kind.judges_tool_calls:
        verdict = kind.judge_calls(tool_calls, gold)
    elif kind.judges_whole_reply:
        # A kind that reads the whole reply byte for byte (IFEval's instructions), unfolded.
        verdict = kind.judge(read.visible, gold)
    else:
        found = kind.find(fold_width(read.visible))
        if found is None:
            verdict = Verdict("no_answer")
        elif not found.readable:
            verdict = Verdict("no_answer", found.answer, found.rule)
        else:
            try:
                verdict = kind.explain(found, gold)  # by `matches`, or why (code)
            except TimeoutError as exc:
                verdict = Verdict("no_answer", found.answer, f"timeout: {exc}")
    return _recorded(state, read.state, verdict)


def _recorded(state: ReplyState | None, read: ReplyState, verdict: Verdict) -> Verdict:
    if state is not None and state != "finished" and state != read:
        rule = f"recorded as {state}; the text reads {verdict.status}"
        return Verdict(state, verdict.answer, rule)
    return verdict
