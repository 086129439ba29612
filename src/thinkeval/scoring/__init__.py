"""Scoring: turn a stored reply into a `Verdict`, as a pure function of the reply.

Named scorers read the same replies: `strict` (only a finished reply's explicit final answer
counts, judged by the task's answer kind) and `lenient` (what AISBench/OpenCompass report by
default), and any recording scorer registered beside them (`registered` for a block,
`register_scorer` for the process: the `ScorerSet` in effect). See
`scoring.scorers` for the plug-in interface and `scoring.kinds` for answer kinds;
`thinkeval.score` scores one reply to a named task.
"""

from __future__ import annotations

from thinkeval.records import ReplyState
from thinkeval.scoring.scorers import (
    BUILT_IN,
    SCORERS,
    ReplyText,
    ScoredTask,
    Scorer,
    ScorerSet,
    TaskScoring,
    active_scorers,
    get_scorer,
    recording_scorers,
    register_scorer,
    registered,
    unregister_scorer,
)
from thinkeval.scoring.state import RETRY_STATES, reply_state

__all__ = [
    "BUILT_IN",
    "RETRY_STATES",
    "SCORERS",
    "ReplyState",
    "ReplyText",
    "ScoredTask",
    "Scorer",
    "ScorerSet",
    "TaskScoring",
    "active_scorers",
    "get_scorer",
    "recording_scorers",
    "register_scorer",
    "registered",
    "reply_state",
    "unregister_scorer",
]
