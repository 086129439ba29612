"""The prompts AISBench sends, packaged verbatim as `aisbench_prompts.json`."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

PROMPTS_FILE = "aisbench_prompts.json"

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def aisbench_prompts() -> dict[str, Any]:
    """The packaged AISBench templates, keyed by config name.

    >>> aisbench_prompts()["boolq_0shot_str"]["label_to_gold"]
    {'true': 'A', 'false': 'B'}
    """
    text = resources.files("thinkeval.tasks").joinpath(PROMPTS_FILE).read_text(encoding="utf-8")
    prompts: dict[str, Any] = json.loads(text)
    return prompts


def fill(template: str, **values: str) -> str:
    """Replace the `{name}` placeholders of `template` in a single pass.

    Values are inserted verbatim and never scanned again, so braces inside a question cannot
    break formatting; placeholders without a value are left as they are, as AISBench does.

    >>> fill("Question: {question}", question="what is {x}?")
    'Question: what is {x}?'
    """
    return _PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), template)


def user_message(content: str) -> dict[str, str]:
    """One chat message from the user."""
    return {"role": "user", "content": content}
