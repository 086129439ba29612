"""IFEval's verifiable instructions: a reply is correct when it follows every one, strictly.

The gold is the JSON of the instructions (`instructions_gold`). Unlike the other kinds, this
one judges the whole visible reply, byte for byte (never folded to ASCII or stripped), so the
strict scorer hands it the text as the reply state left it (`judge`). The verdict's answer
records both readings per instruction, `strict=101 loose=111` (1: followed), so the four
IFEval accuracies (prompt and instruction level, strict and loose) are counted from the
verdicts alone (`scoring.ifeval.metrics`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from thinkeval.records import Verdict
from thinkeval.scoring.ifeval import Instruction, check_instruction, follows
from thinkeval.scoring.kinds.base import AnswerKind, Found


def instructions_gold(ids: Sequence[str], kwargs: Sequence[Mapping[str, Any]]) -> str:
    """The gold of an IFEval sample: its instructions and their arguments, as JSON."""
    return json.dumps([[iid, dict(args)] for iid, args in zip(ids, kwargs, strict=True)])


def parse_gold(gold: str) -> list[Instruction]:
    """The instructions of a gold made by `instructions_gold`; ValueError if it is not one."""
    data = json.loads(gold)
    if not isinstance(data, list) or not data:
        raise ValueError("the gold must be a non-empty JSON list of [instruction id, arguments]")
    out: list[Instruction] = []
    for entry in data:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], dict)):
            raise ValueError(f"bad instruction entry {entry!r}")
        problem = check_instruction(str(entry[0]), entry[1])
        if problem:
            raise ValueError(problem)
        out.append((str(entry[0]), entry[1]))
    return out


def bits(followed: Sequence[bool]) -> str:
    return "".join("1" if ok else "0" for ok in followed)


def instruction_verdict(text: str, gold: str, loose: bool) -> Verdict:
    """`correct` when `text` follows every instruction (strictly, or loosely with `loose`)."""
    instructions = parse_gold(gold)
    strict = follows(text, instructions)
    lax = follows(text, instructions, loose=True)
    headline = lax if loose else strict
    answer = f"strict={bits(strict)} loose={bits(lax)}"
    rule = f"{'loose' if loose else 'strict'}: {sum(headline)}/{len(headline)} followed"
    return Verdict("correct" if all(headline) else "wrong", answer, rule)


@dataclass(frozen=True)
class InstructionsKind(AnswerKind):
    """Every instruction followed, strictly (the IFEval prompt-level strict accuracy)."""

    name: str = "instructions"
    version: str = "1"
    # Language detection and sentence splitting take tens of milliseconds a reply (seconds to
    # load): scored in the worker processes, never on the event loop.
    pooled: bool = True
    judges_whole_reply: ClassVar[bool] = True

    def warm_up(self) -> None:
        from thinkeval.scoring.ifeval.content import warm_up

        warm_up()

    def judge(self, text: str, gold: str) -> Verdict:
        """The verdict on a finished reply's visible text, exactly as written."""
        return instruction_verdict(text, gold, loose=False)

    def find(self, text: str) -> Found | None:
        # Only for callers that ask for an answer alone: the per-instruction record.
        return None

    def matches(self, answer: str, gold: str) -> bool:
        strict = answer.partition(" ")[0].removeprefix("strict=")
        return bool(strict) and set(strict) == {"1"}

    def check_gold(self, gold: str) -> str | None:
        try:
            parse_gold(gold)
        except ValueError as exc:
            return str(exc)
        return None
