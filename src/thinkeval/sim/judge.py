"""The simulator as a judge: it answers `thinkeval judge` prompts with the JSON they ask for.

It reads the reply in the prompt with thinkeval's own answer kind (so it mostly agrees with
strict scoring) and, for a seeded share of replies (`p_judge_disagree`), reads it differently:
another number or letter, or no answer. Deterministic per reply text and seed, so tests know
what to expect.
"""

from __future__ import annotations

import re

import orjson

from thinkeval.scoring.judge import PROMPT_TAG
from thinkeval.scoring.kinds import KindError, make_kind
from thinkeval.scoring.text import fold_width

_KIND = re.compile(r"^Answer kind: (\w+)$", re.MULTILINE)
_LETTERS = re.compile(r", one of ([A-Z](?:, [A-Z])*)$", re.MULTILINE)
_REPLY = re.compile(r"<<<REPLY\n(.*)\nREPLY>>>\Z", re.DOTALL)


def is_judge_prompt(text: str) -> bool:
    """Whether a user message is a `thinkeval judge` prompt."""
    return text.startswith(PROMPT_TAG)


def judge_answer(text: str, disagree: bool) -> str:
    """The JSON a judge gives for the prompt `text`; `disagree` makes it read the reply another
    way than strict scoring does.

    >>> prompt = "[thinkeval judge-1]\\nAnswer kind: number\\n"
    >>> prompt += "<<<REPLY\\nThe answer is 18.\\nREPLY>>>"
    >>> judge_answer(prompt, False), judge_answer(prompt, True)
    ('{"answer":"18"}', '{"answer":"19"}')
    """
    kind_match, reply_match = _KIND.search(text), _REPLY.search(text)
    answer: str | None = None
    if kind_match and reply_match:
        letters = _LETTERS.search(text)
        options = {"letters": letters.group(1).replace(", ", "")} if letters else {}
        try:
            kind = make_kind(kind_match.group(1), **options)
        except KindError:
            kind = None
        found = kind.find(fold_width(reply_match.group(1))) if kind is not None else None
        answer = found.answer if found is not None else None
    if disagree:
        answer = _other(answer)
    return orjson.dumps({"answer": answer}).decode()


def _other(answer: str | None) -> str | None:
    if answer is None:
        return "1"
    if len(answer) == 1 and answer.isalpha():
        return "B" if answer == "A" else "A"
    try:
        return str(int(answer) + 1)
    except ValueError:
        return None
