"""The answer field of a reply written as JSON, as prompts that ask for JSON get back.

`{"reasoning": "...", "answer": "18"}`, fenced in ```json or bare, possibly after a line of prose.
Only the reply's *last* JSON object counts, and only its answer field: the reasoning field is
reasoning, and a statement inside it ("at first I thought the answer is 20") is never the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Keys that hold the final answer, compared lower-cased with spaces and dashes as underscores.
ANSWER_KEYS = ("answer", "final_answer", "finalanswer", "答案", "最终答案")
# An object starts at the beginning of a line (after a fence or markdown), never mid-sentence.
_OBJECT_START = re.compile(r"^[ \t>]*\{", re.MULTILINE)
# Bound the work on long replies: the last few objects are tried, newest first.
_MAX_TRIES = 8
_DECODER = json.JSONDecoder()


def json_answer(text: str) -> tuple[bool, str | None]:
    """`(found, value)`: whether the reply's last JSON object has an answer field, and that
    field as text (None when it is null, empty or not a scalar).

    >>> json_answer('```json\\n{"reasoning": "9 * 2 = 18", "answer": "18"}\\n```')
    (True, '18')
    >>> json_answer('{"answer": 18.5}'), json_answer('{"answer": null}')
    ((True, '18.5'), (True, None))
    >>> json_answer('The answer is 18.')
    (False, None)
    """
    if "{" not in text:
        return False, None
    starts = [match.end() - 1 for match in _OBJECT_START.finditer(text)]
    for start in reversed(starts[-_MAX_TRIES:]):
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            continue
        if isinstance(value, dict):
            field = _answer_field(value)
            if field is not None:
                return True, _scalar(field[1])
    return False, None


def _answer_field(obj: dict[str, Any]) -> tuple[str, Any] | None:
    for key, value in obj.items():
        if isinstance(key, str) and re.sub(r"[\s-]+", "_", key.strip().lower()) in ANSWER_KEYS:
            return key, value
    return None


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None
