"""The strict scorer: only a finished reply's explicit final answer counts."""

from __future__ import annotations

from collections.abc import Callable

from thinkeval.records import Verdict
from thinkeval.scoring.choice_answers import find_boolq_answer, find_ceval_answer
from thinkeval.scoring.math_answers import find_number_answer
from thinkeval.scoring.numbers import canonical_number
from thinkeval.scoring.text import fold_width, split_think

_FINDERS: dict[str, Callable[[str], tuple[str, str] | None]] = {
    "gsm8k": find_number_answer,
    "boolq": find_boolq_answer,
    "ceval": find_ceval_answer,
}


def strict_verdict(task: str, content: str | None, finish_reason: str | None, gold: str) -> Verdict:
    """Score the reply's `content` (never its reasoning) against `gold`.

    `empty` when nothing is left after any think block; `unfinished` when the token limit cut it
    (`finish_reason == "length"`) or a `<think>` is unclosed; else `correct`/`wrong` for a legal
    final answer, `no_answer` without one. `task` must be a known task (see `thinkeval.scoring`).

    >>> strict_verdict("gsm8k", "<think>2+2</think>The answer is 4.", "stop", "4").status
    'correct'
    """
    if content is None:
        return Verdict("empty", rule="no-content")
    text, unclosed = split_think(content)
    if not text.strip():
        return Verdict("empty", rule="no-content")
    # A cut-off reply's "The answer is 5" is not its final word, so it is never scored.
    if finish_reason == "length":
        return Verdict("unfinished", rule="finish-length")
    if unclosed:
        return Verdict("unfinished", rule="unclosed-think")
    found = _FINDERS[task](fold_width(text))
    if found is None:
        return Verdict("no_answer")
    answer, rule = found
    return Verdict("correct" if answer == _gold(task, gold) else "wrong", answer, rule)


def _gold(task: str, gold: str) -> str | None:
    if task == "gsm8k":
        return canonical_number(gold)
    return fold_width(gold).strip().upper()
