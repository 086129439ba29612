"""The Python API: what a notebook or a script calls.

>>> import thinkeval
>>> thinkeval.score("gsm8k", "So she has 18 eggs.\\nThe answer is 18", "stop", gold="18").status
'correct'
"""

from __future__ import annotations

from thinkeval.records import Verdict
from thinkeval.scoring.scorers import ReplyText, get_scorer
from thinkeval.tasks.registry import find_task, task_names


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
    spec = find_task(task)
    if spec is None:
        raise ValueError(f"unknown task {task!r}: expected one of {', '.join(task_names())}")
    return get_scorer(scorer).score(spec, ReplyText(content, reasoning, finish_reason), gold)
