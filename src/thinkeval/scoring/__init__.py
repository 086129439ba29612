"""Scorers: turn a stored reply into a `Verdict`, as a pure function of the reply.

Two named scorers read the same replies: `strict` (only a finished reply's explicit final answer
counts) and `lenient` (what AISBench/OpenCompass report by default).
"""

from __future__ import annotations

from thinkeval.records import Verdict
from thinkeval.scoring.lenient import lenient_verdict
from thinkeval.scoring.strict import strict_verdict

TASKS: tuple[str, ...] = ("gsm8k", "boolq", "ceval")
SCORERS: tuple[str, ...] = ("strict", "lenient")
# Recorded with every scored attempt. Summaries reuse the verdicts of attempts scored by this
# version and re-score the others, so bump it whenever some reply would get another verdict;
# tests/test_scoring_api.py pins a digest of the verdicts on a corpus to catch a forgotten bump.
SCORER_VERSION = "1"

__all__ = ["SCORERS", "SCORER_VERSION", "TASKS", "lenient_verdict", "score", "strict_verdict"]


def score(
    task: str,
    content: str | None,
    finish_reason: str | None,
    gold: str,
    reasoning: str | None = None,
    scorer: str = "strict",
) -> Verdict:
    """Score one reply to a `task` sample against its `gold` answer with the named `scorer`.

    Raises ValueError for an unknown task or scorer; never for the reply's text.

    >>> score("gsm8k", "She pays 5*3=15 dollars.", "stop", "15")
    Verdict(status='correct', answer='15', rule='last-sentence-number')
    >>> score("gsm8k", "The answer is 15", "length", "15").status
    'unfinished'
    >>> score("gsm8k", "The answer is 15", "length", "15", scorer="lenient").status
    'correct'
    """
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}: expected one of {', '.join(TASKS)}")
    if scorer == "strict":
        return strict_verdict(task, content, finish_reason, gold)
    if scorer == "lenient":
        return lenient_verdict(task, content, reasoning, gold)
    raise ValueError(f"unknown scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
