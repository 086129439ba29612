"""The judge scorer: a judge model extracts a finished reply's final answer; the task's answer
kind compares it with the gold.

The judge never sees the gold and is never asked whether the answer is right: it only reads the
reply, as a careful human grader would, and says which final answer the reply commits to (or
none). Its answer is then compared exactly as a strict answer is, so strict and judge differ only
where they read the reply differently. The prompt is versioned (`PROMPT_VERSION`): verdicts given
under another prompt or by another judge model are asked again.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from thinkeval.records import Status, Verdict
from thinkeval.scoring.kinds import AnswerKind
from thinkeval.scoring.text import fold_width

PROMPT_VERSION = "judge-1"
# The judge's name among the scorers: its numbers are `Counts.scorers[NAME]` once a run has
# been judged (summary.json, the report's "Strict vs judge", the terminal's `judge fixed`).
NAME = "judge"
# The first line of every judge prompt; the simulator recognises judge requests by it.
PROMPT_TAG = f"[thinkeval {PROMPT_VERSION}]"
QUESTION_LIMIT = 6000  # characters of the question shown to the judge
REPLY_LIMIT = 12000  # characters of the reply: its end, where the final answer is

_TEMPLATE = """{tag}
You are checking how a reply to a question ends. Extract the final answer the reply commits to.
Answer kind: {kind}
Write the answer as {format}.
If the reply commits to no single final answer (it hedges between answers, refuses, or stops
without concluding), the answer is null. Do not solve the question yourself and do not judge
whether the answer is right: report what the reply says.
Respond with one JSON object and nothing else: {{"answer": "<the answer>"}} or {{"answer": null}}.

<<<QUESTION
{question}
QUESTION>>>

<<<REPLY
{reply}
REPLY>>>"""
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class JudgeReplyError(ValueError):
    """The judge's reply is not the JSON object the prompt asks for."""


def judge_prompt(kind: AnswerKind, question: str, reply: str) -> str:
    """The judge prompt for one reply (the visible content after any think block)."""
    if len(question) > QUESTION_LIMIT:
        question = question[: QUESTION_LIMIT // 2] + "\n[...]\n" + question[-QUESTION_LIMIT // 2 :]
    if len(reply) > REPLY_LIMIT:
        reply = "[...]\n" + reply[-REPLY_LIMIT:]
    return _TEMPLATE.format(
        tag=PROMPT_TAG, kind=kind.name, format=kind.answer_format(), question=question, reply=reply
    )


def parse_judge_reply(text: str | None) -> str | None:
    """The answer in the judge's reply: a string, or None for `{"answer": null}`.

    Strict: one JSON object with the key `answer` (a ```json fence around it is tolerated).
    Raises `JudgeReplyError` otherwise.

    >>> parse_judge_reply('{"answer": "18"}'), parse_judge_reply('{"answer": null}')
    ('18', None)
    """
    if text is None or not text.strip():
        raise JudgeReplyError("the judge's reply is empty")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        data: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise JudgeReplyError(f"not JSON: {body[:120]!r}") from None
    if not isinstance(data, dict) or "answer" not in data:
        raise JudgeReplyError(f'not an object with "answer": {body[:120]!r}')
    answer = data["answer"]
    if answer is None:
        return None
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        raise JudgeReplyError(f"answer is {type(answer).__name__}, not a string")
    return str(answer).strip() or None


def judge_verdict(kind: AnswerKind, answer: str | None, gold: str) -> Verdict:
    """The verdict for the judge's extracted `answer`, compared as the strict scorer compares.

    The answer is first read by the kind itself (`"1,200"` is 1200, `"(b)"` is B), so equal
    readings of a reply give equal answers.

    >>> from thinkeval.scoring.kinds import make_kind
    >>> judge_verdict(make_kind("number"), "1,200", "1200")
    Verdict(status='correct', answer='1200', rule='judge-1')
    """
    if answer is None:
        return Verdict("no_answer", rule=PROMPT_VERSION)
    found = kind.find(fold_width(answer))
    if found is not None:
        answer = found.answer
    status: Status = "correct" if kind.matches(answer, gold) else "wrong"
    return Verdict(status, answer, PROMPT_VERSION)
