"""The judgements of `thinkeval check --audit`: each check from the replies it asked for.

Every function takes what the audit's requests brought back (`Shot`s) and returns one
`AuditCheck`: pass, fail, warn or skipped, with one line of evidence that says what was asked
and what came back. Nothing here sends a request (`ops/audit.py` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from thinkeval.client.fingerprint import reasoning_field
from thinkeval.client.profiles import get_profile
from thinkeval.client.reasoning_controls import SLACK_TOKENS
from thinkeval.client.refusals import CONTEXT_STATUSES
from thinkeval.client.replies import RequestFailed
from thinkeval.records import Reply

Status = Literal["pass", "fail", "warn", "skipped"]
# Below this many reasoning tokens, a budget or an effort cannot be told from noise.
MIN_MEASURABLE = 64
# Low effort must cut the reasoning at least this much to count as honoured.
EFFORT_CUT = 0.8


class AuditCheck(msgspec.Struct, kw_only=True):
    """One audit check: what it tests (`id`, `title`), its verdict, and its evidence."""

    id: str
    title: str
    status: Status
    evidence: str


@dataclass
class Shot:
    """One audit request and what came back: the normalised reply and the raw message."""

    max_tokens: int
    reply: Reply | None = None
    message: dict[str, Any] | None = None
    error: RequestFailed | None = None

    @property
    def text(self) -> str:
        """Reasoning and content together: what two replies are compared by."""
        reply = self.reply
        return "" if reply is None else f"{reply.reasoning or ''}\x00{reply.content or ''}"

    @property
    def reasoning_tokens(self) -> tuple[int | None, bool]:
        """(reasoning tokens, whether reported by the server rather than estimated here)."""
        reply = self.reply
        if reply is None:
            return None, False
        if reply.usage.reasoning_tokens is not None:
            return reply.usage.reasoning_tokens, True
        reasoning, content = len(reply.reasoning or ""), len(reply.content or "")
        total = reply.usage.completion_tokens
        if total is None or reasoning + content == 0:
            return None, False
        return round(total * reasoning / (reasoning + content)), False


def _check(id_: str, title: str, status: Status, evidence: str) -> AuditCheck:
    return AuditCheck(id=id_, title=title, status=status, evidence=evidence)


def _replied(id_: str, title: str, shot: Shot) -> Reply | AuditCheck:
    """`shot`'s reply, or a failing check when it brought none."""
    if shot.error is not None:
        return _check(id_, title, "fail", f"the request failed: {shot.error.message}")
    return _check(id_, title, "fail", "no reply") if shot.reply is None else shot.reply


def _failed(id_: str, title: str, shot: Shot) -> AuditCheck | None:
    """A failing check when `shot` brought no reply, else None."""
    reply = _replied(id_, title, shot)
    return reply if isinstance(reply, AuditCheck) else None


def _tokens(shot: Shot) -> str:
    count, reported = shot.reasoning_tokens
    return "?" if count is None else f"{count}" if reported else f"≈{count}"


def _hidden(shot: Shot) -> bool:
    """The server counted reasoning tokens but sent no reasoning text (OpenAI)."""
    reply = shot.reply
    return reply is not None and not reply.reasoning and (reply.usage.reasoning_tokens or 0) > 0


def field_check(api: str, version: str | None, stop: Shot) -> AuditCheck:
    """The reasoning field's name, against the one the server's version documents."""
    title = "reasoning field name"
    failed = _failed("reasoning_field", title, stop)
    if failed is not None:
        return failed
    found = reasoning_field(stop.message or {})
    expected = get_profile(api).documented_reasoning_field(version)
    engine = f"{api} {version}" if version else api
    if found == "content <think>":
        return _check(
            "reasoning_field",
            title,
            "fail",
            "no reasoning field: the think block arrives inside content (a server without "
            "--reasoning-parser); clients that read content score the reasoning as the answer",
        )
    if found == "none" and _hidden(stop):
        return _check(
            "reasoning_field",
            title,
            "warn",
            f"hidden: the server counts {_tokens(stop)} reasoning tokens but sends no text "
            "(the OpenAI API); nothing of it can be audited",
        )
    if found == "none":
        return _check(
            "reasoning_field",
            title,
            "fail",
            "no reasoning in the reply: thinking is off, or the model does not think",
        )
    if expected is not None and found != expected:
        return _check(
            "reasoning_field",
            title,
            "fail",
            f"{engine} documents `{expected}`, the reply carries `{found}`: not the server its "
            "version says (a proxy rewriting replies, or another build)",
        )
    said = f" as {engine} documents" if expected else ""
    return _check("reasoning_field", title, "pass", f"`{found}`{said}")


def split_stop_check(stop: Shot) -> AuditCheck:
    """A finished reply: reasoning in its field, the answer alone in content."""
    title = "reasoning/content split, finished reply"
    reply = _replied("split_stop", title, stop)
    if isinstance(reply, AuditCheck):
        return reply
    if reply.finish_reason != "stop":
        return _check(
            "split_stop",
            title,
            "skipped",
            f"the probe did not finish within max_tokens {stop.max_tokens} "
            f"(finish_reason {reply.finish_reason}): raise --audit-max-tokens",
        )
    content = reply.content or ""
    if "<think>" in content or "</think>" in content:
        return _check("split_stop", title, "fail", f"think tags left in content: {content[:60]!r}")
    if not reply.reasoning:
        if _hidden(stop):
            return _check("split_stop", title, "skipped", "the reasoning is hidden")
        return _check("split_stop", title, "fail", "finished with no reasoning")
    if not content.strip():
        return _check("split_stop", title, "fail", "finished with an empty content")
    if reply.reasoning_in_content:
        return _check(
            "split_stop",
            title,
            "warn",
            "split by thinkeval, not the server: the think block came inside content",
        )
    shown = f"reasoning {len(reply.reasoning)} chars, content {len(content)} chars"
    return _check("split_stop", title, "pass", f"finish stop: {shown}")


def split_length_check(cut: Shot) -> AuditCheck:
    """A reply cut at max_tokens inside its thinking: all in reasoning, content empty."""
    title = "reasoning/content split, reply cut at max_tokens"
    reply = _replied("split_length", title, cut)
    if isinstance(reply, AuditCheck):
        return reply
    raw = cut.message or {}
    if reply.finish_reason != "length":
        return _check(
            "split_length",
            title,
            "skipped",
            f"the reply finished within {cut.max_tokens} tokens (finish_reason "
            f"{reply.finish_reason}): nothing was cut",
        )
    raw_content = raw.get("content")
    if isinstance(raw_content, str) and raw_content.lstrip().startswith("<think>"):
        return _check(
            "split_length",
            title,
            "warn",
            "the cut think block arrives inside content (vLLM 0.9-0.16's parser, or no parser): "
            "thinkeval moves it to reasoning, clients that read content see it as the answer",
        )
    if reply.content and reply.content.strip():
        return _check(
            "split_length",
            title,
            "fail",
            f"cut inside its thinking, yet content holds {len(reply.content)} chars: "
            f"{reply.content[:60]!r}",
        )
    if not reply.reasoning:
        if _hidden(cut):
            return _check("split_length", title, "skipped", "the reasoning is hidden")
        return _check("split_length", title, "fail", "cut with neither reasoning nor content")
    shown = "null" if raw_content is None else repr(raw_content)
    return _check(
        "split_length", title, "pass", f"reasoning {len(reply.reasoning)} chars, content {shown}"
    )


def finish_length_check(cut: Shot) -> AuditCheck:
    """`length` exactly at max_tokens."""
    title = "finish_reason length at max_tokens"
    reply = _replied("finish_length", title, cut)
    if isinstance(reply, AuditCheck):
        return reply
    used = reply.usage.completion_tokens
    got = f"asked max_tokens {cut.max_tokens}, got finish_reason {reply.finish_reason} at {used}"
    if used is None:
        return _check("finish_length", title, "warn", f"{got}: usage has no completion_tokens")
    if used == cut.max_tokens and reply.finish_reason == "length":
        return _check("finish_length", title, "pass", got)
    if used >= cut.max_tokens or used > cut.max_tokens:
        return _check("finish_length", title, "fail", f"{got} (a cut reply must say length)")
    if reply.finish_reason == "length":
        return _check("finish_length", title, "fail", f"{got} (length before max_tokens)")
    return _check("finish_length", title, "skipped", f"{got}: the reply finished first")


def same_check(id_: str, title: str, first: Shot, others: Sequence[Shot], what: str) -> AuditCheck:
    """Replies that must equal `first` (greedy decoding)."""
    for shot in (first, *others):
        failed = _failed(id_, title, shot)
        if failed is not None:
            return failed
    distinct = len({first.text, *(s.text for s in others)})
    if distinct == 1:
        return _check(id_, title, "pass", f"{what}: identical")
    differing = sum(s.text != first.text for s in others)
    return _check(
        id_, title, "fail", f"{what}: {differing} of {len(others)} differ ({distinct} distinct)"
    )


def budget_check(api: str, field: str | None, stop: Shot, budgeted: Shot | None) -> AuditCheck:
    """The thinking budget: the reasoning ends near it when asked for less than it uses."""
    title = "thinking budget honoured"
    if field is None or budgeted is None:
        return _check("budget", title, "skipped", f"the {api} API has no thinking-budget field")
    asked = budgeted.max_tokens  # the audit sends the budget in max_tokens's place
    failed = _failed("budget", title, budgeted)
    if failed is not None:
        return failed
    used, _ = budgeted.reasoning_tokens
    if used is None:
        return _check("budget", title, "skipped", "the reply's reasoning length is unknown")
    tolerance = asked + SLACK_TOKENS + (asked // 4 if not budgeted.reasoning_tokens[1] else 0)
    got = f"{field}={asked}: reasoning {_tokens(budgeted)} tokens (without it: {_tokens(stop)})"
    if used <= tolerance:
        return _check("budget", title, "pass", got)
    return _check("budget", title, "fail", f"{got}: the budget is ignored")


def effort_check(api: str, field: str | None, stop: Shot, low: Shot | None) -> AuditCheck:
    """reasoning_effort low: shorter reasoning than without it."""
    title = "reasoning effort honoured"
    if field is None or low is None:
        return _check("effort", title, "skipped", f"the {api} API has no effort field")
    failed = _failed("effort", title, low)
    if failed is not None:
        return failed
    base, _ = stop.reasoning_tokens
    used, _ = low.reasoning_tokens
    if base is None or used is None:
        return _check("effort", title, "skipped", "the replies' reasoning lengths are unknown")
    if base < MIN_MEASURABLE:
        why = f"the probe reasoned {base} tokens: too few to tell an effort's effect"
        return _check("effort", title, "skipped", why)
    got = f"{field}=low: reasoning {_tokens(low)} tokens, without it {_tokens(stop)}"
    if used <= EFFORT_CUT * base:
        return _check("effort", title, "pass", got)
    return _check("effort", title, "fail", f"{got}: the effort is ignored")


def repetition_check(looped: Shot) -> AuditCheck:
    """A reply the repetition detector ended must say `repetition`, not `stop`."""
    title = "finish_reason repetition passed through"
    reply = _replied("repetition", title, looped)
    if isinstance(reply, AuditCheck):
        return reply
    from thinkeval.diagnosis.loop import LoopParams, find_loop
    from thinkeval.diagnosis.pieces import cut

    used = reply.usage.completion_tokens
    loops = find_loop(cut(looped.text).ids, LoopParams(start=0, every=1)) is not None
    got = f"a looping prompt at max_tokens {looped.max_tokens}: finish_reason {reply.finish_reason}"
    got += f" at {used} tokens"
    if reply.finish_reason == "repetition":
        return _check("repetition", title, "pass", got)
    if not loops:
        return _check("repetition", title, "skipped", f"{got}, and the reply did not loop")
    if reply.finish_reason == "length":
        return _check(
            "repetition",
            title,
            "skipped",
            f"{got}: the server has no repetition detection on (vLLM 0.20+ "
            "repetition_detection), so loops run to max_tokens",
        )
    if used is not None and used < looped.max_tokens:
        return _check(
            "repetition",
            title,
            "fail",
            f"{got}: the reply loops and ended early, so a detector ended it; its "
            "`repetition` arrives as stop (a gateway rewriting finish reasons?)",
        )
    return _check("repetition", title, "skipped", f"{got}: the reply loops")


def window_check(card_window: int | None, source: str | None, over: Shot | None) -> AuditCheck:
    """The context window the server states (its card, or where its profile reads one:
    llama.cpp's /props, TGI's /info) is the one it enforces."""
    title = "context window"
    if card_window is None or over is None:
        return _check(
            "context_window",
            title,
            "warn",
            "the server states no context window: runs cannot clamp budgets before sending",
        )
    what = f"max_tokens {over.max_tokens}" if over.max_tokens > card_window else "a longer prompt"
    asked = f"window {card_window} ({source}); {what}"
    if over.error is not None:
        enforced = over.error.window
        if over.error.http_status not in CONTEXT_STATUSES:  # 400, TGI's 422
            return _check("context_window", title, "fail", f"{asked}: failed: {over.error.message}")
        if enforced is not None and enforced != card_window:
            return _check(
                "context_window",
                title,
                "fail",
                f"{asked} refused naming a window of {enforced}: the server does not state "
                "the window it enforces",
            )
        shown = f" of {enforced}" if enforced is not None else ""
        return _check("context_window", title, "pass", f"{asked} refused (window{shown})")
    return _check(
        "context_window",
        title,
        "fail",
        f"{asked} accepted: the server allows more than the window it states",
    )
