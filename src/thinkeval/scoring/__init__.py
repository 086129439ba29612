"""Scoring: turn a stored reply into a `Verdict`, as a pure function of the reply.

Named scorers read the same replies: `strict` (only a finished reply's explicit final answer
counts, judged by the task's answer kind) and `lenient` (what AISBench/OpenCompass report by
default). See `scoring.scorers` for the plug-in interface and `scoring.kinds` for answer kinds;
`thinkeval.score` scores one reply to a named task.
"""

from __future__ import annotations

from thinkeval.records import ReplyState
from thinkeval.scoring.scorers import SCORERS, ReplyText, Scorer, get_scorer
from thinkeval.scoring.state import RETRY_STATES, reply_state

__all__ = [
    "RETRY_STATES",
    "SCORERS",
    "ReplyState",
    "ReplyText",
    "Scorer",
    "get_scorer",
    "reply_state",
]
