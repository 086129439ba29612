"""The tool-calls kind: a reply's function calls, as the server's tool parser read them, judged by
BFCL's AST checker (`scoring.bfcl`) against the task's answer key.

The gold is JSON: `{"category", "functions", "answer"}`, BFCL's category (which checker runs),
the functions as BFCL defines them (the checker reads their types) and its possible answers
(none for the relevance categories). Only `tool_calls` count: a call written in the text or the
reasoning is no call. Verdicts, for a finished reply:

- irrelevance categories: no call is `correct`, any call `wrong`;
- relevance (`live_relevance`): a call is `correct`; no call is `no_answer`;
- the others: no call, or a call whose arguments are not a JSON object, is `no_answer`;
  otherwise BFCL's checker says `correct` or `wrong` (its error type is the rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson

from thinkeval.records import ToolCall, Verdict
from thinkeval.scoring.kinds.base import AnswerKind, Found


def decoded_calls(calls: Sequence[ToolCall]) -> list[dict[str, dict[str, Any]]] | None:
    """`[{name: arguments}]` as BFCL's OpenAI FC handler decodes them; None when some call's
    arguments are not a JSON object."""
    decoded = []
    for call in calls:
        try:
            arguments = orjson.loads(call.arguments or "{}")
        except orjson.JSONDecodeError:
            return None
        if not isinstance(arguments, dict):
            return None
        decoded.append({call.name: arguments})
    return decoded


def parse_gold(gold: str) -> dict[str, Any]:
    """The gold's parts; `ValueError` names what is missing."""
    parsed = orjson.loads(gold)
    if not isinstance(parsed, dict) or not isinstance(parsed.get("category"), str):
        raise ValueError("a tool-calls gold is a JSON object with a 'category'")
    if not isinstance(parsed.get("functions"), list):
        raise ValueError("a tool-calls gold lists its 'functions'")
    return parsed


@dataclass(frozen=True)
class ToolCallsKind(AnswerKind):
    name: str = "tool_calls"
    version: str = "1"
    pooled: bool = False  # BFCL's checker is a few dict comparisons
    judges_tool_calls: ClassVar[bool] = True

    def find(self, text: str) -> Found | None:
        """Text is never a call: only the server's parsed `tool_calls` are (`judge_calls`)."""
        return None

    def matches(self, answer: str, gold: str) -> bool:
        """Whether calls (`answer`, JSON `[{name: arguments}]`) pass BFCL's checker."""
        return self._judge(orjson.loads(answer), parse_gold(gold)).status == "correct"

    def check_gold(self, gold: str) -> str | None:
        try:
            parsed = parse_gold(gold)
        except (ValueError, orjson.JSONDecodeError) as exc:
            return str(exc)
        if "relevance" not in parsed["category"] and not parsed.get("answer"):
            return f"category {parsed['category']!r} needs an 'answer'"
        return None

    def judge_calls(self, calls: Sequence[ToolCall] | None, gold: str) -> Verdict:
        """The verdict on a finished reply's calls (None: it made none)."""
        parsed = parse_gold(gold)
        if not calls:
            if "irrelevance" in parsed["category"]:
                return Verdict("correct", "[]", "no call")
            return Verdict("no_answer", rule="no call")
        decoded = decoded_calls(calls)
        if decoded is None:
            return Verdict("no_answer", _shown(calls), "arguments-not-json-object")
        return self._judge(decoded, parsed)

    def _judge(self, decoded: list[dict[str, dict[str, Any]]], gold: dict[str, Any]) -> Verdict:
        from thinkeval.scoring.bfcl import check_calls  # bfcl-eval only where a task calls tools

        answer = orjson.dumps(decoded).decode()
        category = gold["category"]
        if "irrelevance" in category:
            return Verdict("wrong" if decoded else "correct", answer, "called" if decoded else None)
        if "relevance" in category:
            return Verdict("correct" if decoded else "no_answer", answer, "called")
        checked = check_calls(category, gold["functions"], decoded, gold.get("answer") or [])
        return Verdict("correct" if checked.valid else "wrong", answer, checked.error_type or "ast")


def _shown(calls: Sequence[ToolCall]) -> str:
    return orjson.dumps([{call.name: call.arguments} for call in calls]).decode()
