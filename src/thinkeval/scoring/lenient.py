"""The lenient scorer: what AISBench/OpenCompass report by default, truncated replies included.

It reproduces their postprocessors: GSM8K takes the last number before any `Question:`,
BoolQ the first capital letter, C-Eval the last standalone letter A-D. It reads the reasoning
when the content is empty and ignores `finish_reason`, so it never says `unfinished`.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable

from thinkeval.records import Status, Verdict

# OpenCompass gsm8k_postprocess: no comma stripping, so "1,200" reads as 200.
# Same matches as its r"\-?\d+\.\d+|\-?\d+", written to start with a digit or a sign followed by
# one, which the regex engine scans about four times faster.
_OC_NUMBER = re.compile(r"(?:-\d|\d)\d*(?:\.\d+)?")
# "Not part of a word" with ASCII word characters, so "答案是B" still yields B.
# The letter first and the lookbehind after it: the engine then skips non-candidates quickly.
_STANDALONE_ABCD = re.compile(r"[A-D](?<![A-Za-z0-9_][A-D])(?![A-Za-z0-9_])")
_GSM8K_TOLERANCE = 1e-6
_TAIL_WINDOW = 512


def lenient_text(content: str | None, reasoning: str | None) -> str:
    """The text AISBench scores by default.

    AISBench's prediction is `reasoning + "</think>" + content`, or the reasoning alone when the
    content is empty; its chat model configs then apply `extract_non_reasoning_content`, which
    keeps what follows the last `</think>`. So a finished reply is scored on its content, and a
    reply cut off inside the reasoning on the reasoning itself: that is where the inflation
    comes from.
    """
    if content and content.strip():
        joined = f"{reasoning}</think>{content}" if reasoning else content
    else:
        joined = reasoning or ""
    if "</think>" in joined:
        return joined.rsplit("</think>", 1)[1].strip()
    return joined


def lenient_verdict(rule: str, content: str | None, reasoning: str | None, gold: str) -> Verdict:
    """Score like AISBench/OpenCompass defaults with post-processor `rule` (see `RULES`);
    `finish_reason` is ignored on purpose.

    >>> lenient_verdict("gsm8k", None, "Okay, 2+2 is 4, so the answer", "4").status
    'correct'
    """
    postprocess = RULES.get(rule)
    if postprocess is None:
        raise ValueError(f"unknown lenient rule {rule!r}; known rules: {', '.join(RULES)}")
    text = lenient_text(content, reasoning)
    if not text.strip():
        return Verdict("empty", rule="no-content")
    return postprocess(text, gold)


def _gsm8k(text: str, gold: str) -> Verdict:
    number = _last_oc_number(text.split("Question:")[0])
    if number is None:
        return Verdict("no_answer")
    return Verdict(_gsm8k_status(number, gold), number, "last-number")


def _first_capital(text: str, gold: str) -> Verdict:
    answer = next((char for char in text if char.isupper()), None)
    return _letter_verdict(answer, gold, "first-capital")


def _last_option_abcd(text: str, gold: str) -> Verdict:
    last = deque(_STANDALONE_ABCD.finditer(text), maxlen=1)
    return _letter_verdict(last[0].group() if last else None, gold, "last-letter")


def _letter_verdict(answer: str | None, gold: str, rule: str) -> Verdict:
    if answer is None:
        return Verdict("no_answer")
    return Verdict("correct" if answer == gold.strip() else "wrong", answer, rule)


# AISBench's post-processors by name; a task spec names the one its AISBench config uses.
RULES: dict[str, Callable[[str, str], Verdict]] = {
    "gsm8k": _gsm8k,
    "first-capital": _first_capital,
    "last-option-ABCD": _last_option_abcd,
}


def _last_oc_number(text: str) -> str | None:
    # Scanning a whole reply costs ~60 ns a character. A match holds only "-", "." and digits,
    # so a scan that starts right after any other character finds the same last match: scan
    # a tail window from such a point, widening it until a number turns up or the text runs out.
    window = _TAIL_WINDOW
    while True:
        start = max(0, len(text) - window)
        while start > 0 and _in_number(text[start - 1]):
            start -= 1
        last = deque(_OC_NUMBER.finditer(text, start), maxlen=1)
        if last:
            return last[0].group()
        if start == 0:
            return None
        window *= 4


def _in_number(char: str) -> bool:
    return char in "-." or char.isdecimal()  # \d is any Unicode decimal digit


def _gsm8k_status(answer: str, gold: str) -> Status:
    try:
        return "correct" if abs(float(answer) - float(gold)) < _GSM8K_TOLERANCE else "wrong"
    except (ValueError, OverflowError):
        return "wrong"
