"""The `math` flavour's answers: competition problems (AIME, MATH-500) with LaTeX answers.

A real thinking model writes the gold `\\frac{1}{2}` as `0.5` or `\\dfrac{1}{2}`, AIME's `025` as
`25` and `90^\\circ` as `90`: a correct simulated reply sometimes does the same, so scoring by
equivalence is exercised. Reasoning is `LENGTH_SCALE` times the configured lengths, as thinking
models write 5k-30k tokens on these problems.
"""

from __future__ import annotations

import random
import re

LENGTH_SCALE = 8

_FRACTION = re.compile(r"\\[dt]?frac\{(-?\d+)\}\{(\d+)\}")
_INTEGER = re.compile(r"-?\d+")
_DEGREES = re.compile(r"(-?\d+)\^\\circ")
_CHOICE = re.compile(r"\\text\{\(([A-E])\)\}")
_FIRST_INTEGER = re.compile(r"\d+")

# Endings of a finished reply after the think block. `{v}` is the answer as written.
_RECAP = (
    "We set up the quantities from the problem, reduce the condition to a single equation, "
    "and solve it. Checking the result against every constraint in the statement confirms it "
    "satisfies all of them.\n\n"
)
FORMS = (
    _RECAP + "Therefore, the final answer is $\\boxed{{{v}}}$.",
    _RECAP + "**Final Answer**\n\\[\n\\boxed{{{v}}}\n\\]",
    "### Solution\n\n" + _RECAP + "The answer is $\\boxed{{{v}}}$.",
    _RECAP + "So the result is $\\boxed{{{v}}}$.",
)
# Finished replies without a final answer: no box, no statement.
MALFORMED = (
    "We reduce the problem to the equation $x^2 - {a}x + {b} = 0$, whose roots we still need "
    "to compare with the constraints; the remaining case analysis is left open.",
    "Hmm, the computation above gives {c} for one case and something else for the other, "
    "so I am not certain which one the problem wants.",
)
# Reasoning sentences; `{x}` is a restatement slot, `{a} {b} {c}` numbers as in `text.py`.
REASONING = (
    ("Let me set $x = {a}$ and $y = {b}$, so $x + y = {c}$.", "add"),
    ("Multiplying gives ${a} \\cdot {b} = {c}$.", "mul"),
    ("Half of ${c}$ is ${a}$, which matches the condition.", "half"),
    ("Subtracting, ${c} - {b} = {a}$.", "add"),
    ("Let me reconsider the constraint on the sides of the triangle.", ""),
    ("Wait, I should check the case where $n$ is odd.", ""),
    ("By symmetry we only need to count one of the two configurations.", ""),
    ("Hmm, that contradicts the earlier bound, so I made an arithmetic slip.", ""),
    ("Let me redo this step more carefully.", ""),
    ("Applying the formula for the sum of a geometric series here.", ""),
    ("So the candidate answer is ${x}$.", "slot"),
    ("That would make the answer ${x}$.", "slot"),
    ("Double checking, I still get ${x}$.", "slot"),
)


def written_as(gold: str, form: int) -> str:
    """A correct answer as a thinking model might write it for `gold`: half the forms give the
    gold verbatim, the others an equivalent spelling where one is known.

    >>> written_as("025", 1), written_as("\\\\frac{1}{2}", 1), written_as("90^\\\\circ", 3)
    ('25', '0.5', '90')
    """
    gold = gold.strip()
    if _INTEGER.fullmatch(gold):
        return str(int(gold))  # AIME's "025" is written 25
    if form % 2 == 0:
        return gold
    fraction = _FRACTION.fullmatch(gold)
    if fraction:
        numerator, denominator = int(fraction.group(1)), int(fraction.group(2))
        decimal = _short_decimal(numerator, denominator)
        if decimal is not None and form % 4 == 1:
            return decimal
        return f"\\dfrac{{{numerator}}}{{{denominator}}}"
    degrees = _DEGREES.fullmatch(gold)
    if degrees:
        return degrees.group(1)
    choice = _CHOICE.fullmatch(gold)
    if choice:
        return choice.group(1)
    return gold


def _short_decimal(numerator: int, denominator: int) -> str | None:
    for places in range(1, 4):
        scaled = numerator * 10**places
        if denominator and scaled % denominator == 0:
            return f"{scaled // denominator / 10**places:.{places}f}"
    return None


def wrong_value(gold: str, rng: random.Random) -> str:
    """A wrong answer close to `gold`: another integer in 0-999 for AIME-style golds, else the
    gold with its first integer changed (`\\frac{14}{3}` becomes `\\frac{15}{3}`; not the last,
    which may be a base: `52_8`)."""
    gold = gold.strip()
    if _INTEGER.fullmatch(gold):
        value = int(gold)
        wrong = value + rng.choice((1, 2, 3, 7, 10, -1, -2, -4, 100))
        return str(wrong if 0 <= wrong <= 999 and wrong != value else (value + 500) % 1000)
    first = _FIRST_INTEGER.search(gold)
    if first is None:
        return f"{gold} + 1"
    changed = int(first.group()) + rng.choice((1, 2, 3))
    return f"{gold[: first.start()]}{changed}{gold[first.end() :]}"


def invented_gold(rng: random.Random) -> str:
    """A gold for a prompt missing from the answer key: an AIME-style integer."""
    return str(rng.randint(0, 999))
