"""The value of a short arithmetic expression a reply states as its answer (`20 - 2`, `8 × $5`).

Exact rational arithmetic (no floats, no `eval`), bounded in size so hostile text stays cheap:
numbers with currency and thousands separators, `+ - * / × ÷ x`, LaTeX `\\times \\cdot \\div`,
and brackets.
"""

from __future__ import annotations

import re
from fractions import Fraction

from thinkeval.scoring.numbers import NUMBER_ATOMIC, canonical

_MAX_TOKENS = 40
_TOKEN = re.compile(
    NUMBER_ATOMIC + r"|(?P<op>\\times|\\cdot|\\div|[-+*/×÷xX·()])|(?P<skip>[\s$\\{}]+)"
)
_OPERATORS = {"\\times": "*", "\\cdot": "*", "·": "*", "×": "*", "x": "*", "X": "*"}
_OPERATORS.update({"\\div": "/", "÷": "/"})


def _tokens(text: str) -> list[Fraction | str] | None:
    tokens: list[Fraction | str] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or len(tokens) > _MAX_TOKENS:
            return None
        position = match.end()
        if match.group("op"):
            tokens.append(_OPERATORS.get(match.group("op"), match.group("op")))
        elif match.group("int"):
            if tokens and isinstance(tokens[-1], Fraction):
                return None  # two numbers in a row: not one expression
            tokens.append(Fraction(canonical(match)))
    return tokens


class _Parser:
    """Recursive descent over `expr := term (+|- term)*`, `term := factor (*|/ factor)*`."""

    def __init__(self, tokens: list[Fraction | str]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> Fraction | str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def expr(self) -> Fraction:
        value = self.term()
        while self.peek() in ("+", "-"):
            operator = self.tokens[self.at]
            self.at += 1
            value = value + self.term() if operator == "+" else value - self.term()
        return value

    def term(self) -> Fraction:
        value = self.factor()
        while self.peek() in ("*", "/"):
            operator = self.tokens[self.at]
            self.at += 1
            right = self.factor()
            value = value * right if operator == "*" else value / right
        return value

    def factor(self) -> Fraction:
        token = self.peek()
        self.at += 1
        if isinstance(token, Fraction):
            return token
        if token == "-":
            return -self.factor()
        if token == "(":
            value = self.expr()
            if self.peek() != ")":
                raise ValueError("unclosed bracket")
            self.at += 1
            return value
        raise ValueError(f"unexpected {token!r}")


def evaluate(text: str) -> str | None:
    """The canonical value of `text` when it is one arithmetic expression with at least one
    operator, else None: a decimal when it is finite, else a reduced fraction `p/q`.

    >>> evaluate("20 - 2"), evaluate("8 × $5 + 8 × $3"), evaluate("25 / 2"), evaluate("2 / 6")
    ('18', '64', '12.5', '1/3')
    """
    tokens = _tokens(text)
    if not tokens or not any(isinstance(t, str) and t not in "()" for t in tokens):
        return None
    parser = _Parser(tokens)
    try:
        value = parser.expr()
    except (ValueError, ZeroDivisionError):
        return None
    if parser.at != len(tokens):
        return None
    return decimal_string(value) or f"{value.numerator}/{value.denominator}"


def decimal_string(value: Fraction) -> str | None:
    """`value` written as a finite decimal in canonical form, or None (e.g. 1/3)."""
    denominator, scale = value.denominator, 0
    while denominator % 10 == 0 or denominator % 2 == 0 or denominator % 5 == 0:
        if scale > 30:
            return None
        for factor in (10, 2, 5):
            if denominator % factor == 0:
                denominator //= factor
                break
        scale += 1
    if denominator != 1:
        return None
    digits = str(abs(value.numerator) * 10**scale // value.denominator).rjust(scale + 1, "0")
    whole, frac = digits[: len(digits) - scale] or "0", digits[len(digits) - scale :].rstrip("0")
    text = f"{whole}.{frac}" if frac else whole
    return f"-{text}" if value < 0 else text
