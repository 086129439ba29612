"""IFEval's four accuracies from recorded verdicts: prompt and instruction level, strict and
loose.

Each verdict of the `instructions` kind records `strict=<bits> loose=<bits>` (1: followed).
A reply that is empty, cut off or failed records no bits: it follows none of its instructions
in every one of the four numbers (it is counted, never dropped), but its status stays `empty`
/ `unfinished` / `error`, so the protocol's retries and the report tell it apart from a reply
that broke an instruction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# The names of the four numbers, as the IFEval paper reports them (and summary.json keys them).
METRICS = ("prompt_level_strict", "inst_level_strict", "prompt_level_loose", "inst_level_loose")


@dataclass(frozen=True)
class IFEvalCounts:
    prompts: int
    instructions: int
    prompt_level_strict: int
    inst_level_strict: int
    prompt_level_loose: int
    inst_level_loose: int

    def accuracies(self) -> dict[str, float]:
        """The four accuracies by name (0.0 when there is nothing to count)."""
        prompts, instructions = max(self.prompts, 1), max(self.instructions, 1)
        return {
            "prompt_level_strict": self.prompt_level_strict / prompts,
            "inst_level_strict": self.inst_level_strict / instructions,
            "prompt_level_loose": self.prompt_level_loose / prompts,
            "inst_level_loose": self.inst_level_loose / instructions,
        }


def parse_answer(answer: str | None) -> tuple[str, str] | None:
    """`(strict bits, loose bits)` of a verdict's answer, None when it records none."""
    if not answer or not answer.startswith("strict="):
        return None
    strict, _, loose = answer.partition(" ")
    return strict.removeprefix("strict="), loose.removeprefix("loose=")


def count(replies: Iterable[tuple[str | None, int]]) -> IFEvalCounts:
    """Count `(verdict answer, number of instructions of the sample)` pairs."""
    tally = [0] * 6
    for answer, size in replies:
        tally[0] += 1
        tally[1] += size
        parsed = parse_answer(answer)
        if parsed is None:
            continue
        strict, loose = parsed
        tally[2] += set(strict) == {"1"}
        tally[3] += strict.count("1")
        tally[4] += set(loose) == {"1"}
        tally[5] += loose.count("1")
    return IFEvalCounts(*tally)
