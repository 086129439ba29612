"""Scoring: turn a stored reply into a `Verdict`, as a pure function of the reply.

Named scorers read the same replies: `strict` (only a finished reply's explicit final answer
counts, judged by the task's answer kind) and `lenient` (what AISBench/OpenCompass report by
default). See `scoring.scorers` for the plug-in interface and `scoring.kinds` for answer kinds.
"""

from __future__ import annotations

from thinkeval.records import Verdict
from thinkeval.scoring.scorers import SCORERS, ReplyText, Scorer, get_scorer
from thinkeval.scoring.state import RETRY_STATES, ReplyState, reply_state

__all__ = [
    "RETRY_STATES",
    "SCORERS",
    "ReplyState",
    "ReplyText",
    "Scorer",
    "get_scorer",
    "reply_state",
    "score",
]


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
    from thinkeval.tasks.registry import find_task, task_names

    spec = find_task(task)
    if spec is None:
        raise ValueError(f"unknown task {task!r}: expected one of {', '.join(task_names())}")
    return get_scorer(scorer).score(spec, ReplyText(content, reasoning, finish_reason), gold)
