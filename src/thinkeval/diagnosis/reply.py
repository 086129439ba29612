"""The diagnosis of one reply: why an empty or unfinished reply did not finish, from its text.

Read from the stored `reasoning` and `content` alone (the journal), so a run is diagnosed again
without a model and a change of rules only bumps `DIAGNOSIS_VERSION`. One label per empty,
unfinished or `repetition` reply, in this order of precedence:

- `loop`: the output ends in an exact loop, as vLLM's repetition detector sees it (`loop.py`);
- `hesitation`: no loop, but a high density of self-correction markers in the tail
  (`hesitation.py`);
- `found_then_lost`: the task's own answer kind finds a legal final answer in the reasoning
  (an explicit statement, not a fallback such as the last number), yet the reply gave none;
  read, never scored: `found_correct` says whether it equals the gold;
- `progressing`: none of these, still working when cut;
- for `empty` replies first: `no_reasoning` (nothing came back at all) and `swallowed` (the
  reasoning parser kept the answer: `</think>` inside the reasoning, or a reasoning that ended
  with a stop and an answer-looking tail).

Finished replies get no label, only the numbers (lengths, density, a loop if any) for contrast.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from thinkeval.diagnosis.hesitation import HESITATION_DENSITY, TAIL_PIECES, density
from thinkeval.diagnosis.loop import Loop, LoopParams, find_loop
from thinkeval.diagnosis.pieces import Unit, cut
from thinkeval.scoring.kinds.base import AnswerKind
from thinkeval.scoring.text import CLOSE_THINK, OPEN_THINK, fold_width

# 1: loop (vLLM's detector on pieces), hesitation, found_then_lost, progressing, empty causes.
DIAGNOSIS_VERSION = "2"

Label = Literal["loop", "hesitation", "found_then_lost", "progressing", "no_reasoning", "swallowed"]
LABELS: tuple[Label, ...] = (
    "loop",
    "hesitation",
    "found_then_lost",
    "progressing",
    "no_reasoning",
    "swallowed",
)
# The reply-state label: the protocol's state, with `repetition` (vLLM ended a loop) apart.
ReplyLabel = Literal["empty", "unfinished", "repetition", "finished"]
REPLY_LABELS: tuple[ReplyLabel, ...] = ("empty", "unfinished", "repetition", "finished")
# Rules of answer kinds that guess from the last number or line: in reasoning they would find
# an "answer" in nearly every cut trace, so they do not count as a found answer.
_FALLBACK_RULE_PREFIXES = ("last-", "first-", "closed")
# An answer-looking tail of swallowed reasoning: an explicit answer in its last characters.
_SWALLOWED_TAIL_CHARS = 400
_BLOCK_TEXT_CHARS = 400


class LoopSpan(msgspec.Struct, kw_only=True):
    """A detected loop: in which field, the repeated block and the repeated run (characters)."""

    field: Literal["reasoning", "content"]
    block: int  # pieces in the block
    repeats: int
    at: int  # pieces of output when the detector fired
    start: int  # character offset of the repeated run in `field`
    end: int  # character offset where the detector fired
    block_text: str  # the block, cut to 400 characters


class Diagnosis(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One reply's diagnosis; `label` is None for a finished reply."""

    version: str
    reply: ReplyLabel
    label: Label | None = None
    reasoning_pieces: int = 0
    content_pieces: int = 0
    hesitation: float = 0.0  # markers per 1000 pieces in the tail
    loop: LoopSpan | None = None
    found: str | None = None  # an answer stated in the reasoning
    found_rule: str | None = None
    found_correct: bool | None = None  # None: not decidable without algebra (pooled kinds)
    has_reasoning: bool = False
    swallowed: bool = False
    think_in_content: bool = False  # `<think>` or `</think>` inside content


@dataclass(frozen=True)
class DiagnosisParams:
    """The settings of every rule (documented in docs/diagnosis.md)."""

    loop: LoopParams = field(default_factory=LoopParams)
    unit: Unit = "pieces"
    hesitation_density: float = HESITATION_DENSITY
    tail_pieces: int = TAIL_PIECES


def reply_label(state: str | None, finish_reason: str | None) -> ReplyLabel:
    """The reply state with vLLM's `repetition` finish apart, content or not (it retries as
    `unfinished` and `empty` do)."""
    if finish_reason == "repetition":
        return "repetition"
    if state == "empty":
        return "empty"
    return "unfinished" if state == "unfinished" else "finished"


def split_thinking(reasoning: str | None, content: str | None) -> tuple[str, str, bool]:
    """(thinking, answer text, whether think tags were in content): the reasoning field, or
    the think block left inside content when the server ran without a reasoning parser."""
    text = content or ""
    tagged = OPEN_THINK in text or CLOSE_THINK in text
    if reasoning:
        return reasoning, text, tagged
    end = text.rfind(CLOSE_THINK)
    if end >= 0:
        return text[:end].replace(OPEN_THINK, "", 1), text[end + len(CLOSE_THINK) :], tagged
    opened = text.find(OPEN_THINK)
    if opened >= 0:
        return text[opened + len(OPEN_THINK) :], "", tagged
    return "", text, tagged


def diagnose(
    reasoning: str | None,
    content: str | None,
    finish_reason: str | None,
    state: str | None,
    kind: AnswerKind | None = None,
    gold: str | None = None,
    params: DiagnosisParams = DiagnosisParams(),
) -> Diagnosis:
    """Diagnose one reply from its stored texts and state (`scoring.state`)."""
    thinking, answer_text, tagged = split_thinking(reasoning, content)
    reply = reply_label(state, finish_reason)
    output = thinking + answer_text
    pieces = cut(output, params.unit)
    split = bisect_left(pieces.starts, len(thinking))
    diagnosis = Diagnosis(
        version=DIAGNOSIS_VERSION,
        reply=reply,
        reasoning_pieces=split,
        content_pieces=len(pieces.ids) - split,
        has_reasoning=bool(thinking.strip()),
        think_in_content=tagged,
    )
    loop = find_loop(pieces.ids, params.loop, at_end=finish_reason == "repetition")
    if loop is not None:
        diagnosis.loop = _span(loop, pieces.starts, output, len(thinking))
    tail_from = max(0, split - params.tail_pieces)
    tail = thinking[pieces.starts[tail_from] :] if split else ""
    diagnosis.hesitation = round(density(tail, split - tail_from), 2)
    if kind is not None and thinking and reply != "finished":
        _find_answer(diagnosis, kind, thinking, gold)
    if reply != "finished":
        diagnosis.swallowed = reply == "empty" and _swallowed(thinking, finish_reason, kind)
        diagnosis.label = _label(diagnosis, params)
    return diagnosis


def _label(diagnosis: Diagnosis, params: DiagnosisParams) -> Label:
    if diagnosis.reply == "empty":
        if not diagnosis.has_reasoning:
            return "no_reasoning"
        if diagnosis.swallowed:
            return "swallowed"
    if diagnosis.loop is not None:
        return "loop"
    if diagnosis.hesitation >= params.hesitation_density:
        return "hesitation"
    if diagnosis.found is not None:
        return "found_then_lost"
    return "progressing"


def _span(loop: Loop, starts: list[int], output: str, split: int) -> LoopSpan:
    start = starts[loop.start]
    end = starts[loop.at] if loop.at < len(starts) else len(output)
    block_text = output[starts[loop.at - loop.block] : end][:_BLOCK_TEXT_CHARS]
    in_content = start >= split
    base = split if in_content else 0
    return LoopSpan(
        field="content" if in_content else "reasoning",
        block=loop.block,
        repeats=loop.repeats,
        at=loop.at,
        start=start - base,
        end=(end if in_content or end <= split else split) - base,
        block_text=block_text,
    )


def _explicit(kind: AnswerKind, text: str) -> tuple[str, str] | None:
    found = kind.find(fold_width(text))
    if found is None or found.rule.startswith(_FALLBACK_RULE_PREFIXES):
        return None
    return found.answer, found.rule


def _find_answer(diagnosis: Diagnosis, kind: AnswerKind, thinking: str, gold: str | None) -> None:
    found = _explicit(kind, thinking)
    if found is None:
        return
    diagnosis.found, diagnosis.found_rule = found
    if gold is None:
        return
    if not kind.pooled:
        diagnosis.found_correct = kind.matches(found[0], gold)
        return
    # Algebra never runs here: it can hang.
    diagnosis.found_correct = kind.quick_matches(found[0], gold)


def _swallowed(thinking: str, finish_reason: str | None, kind: AnswerKind | None) -> bool:
    if CLOSE_THINK in thinking:
        return True
    if finish_reason != "stop" or kind is None:
        return False
    return _explicit(kind, thinking[-_SWALLOWED_TAIL_CHARS:]) is not None
