"""Numbers as models write them, reduced to one canonical string so equality is exact."""

from __future__ import annotations

import re
from collections import deque

# Optional sign and currency, thousands separators, decimals. The sign may not follow a letter,
# digit or bracket, so "20-15" reads as 20 and 15 rather than 20 and -15.
NUMBER = (
    r"(?P<sign>(?<![0-9A-Za-z)\]}])-)?(?:[$€¥£]\s?(?P<sign2>-)?)?"
    r"(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?"
)
NUMBER_RE = re.compile(NUMBER)
# The same, never backtracking into a shorter number: when "20 - 2" is refused as an answer
# because an operator follows, "2" (the first digit of 20) must not be tried instead.
NUMBER_ATOMIC = f"(?>{NUMBER})"


def canonical(match: re.Match[str]) -> str:
    """Canonical string of a match of a pattern built on `NUMBER`: `$1,200.00` -> `1200`.

    Works on the digit strings themselves (no float, no int) so long numbers stay exact.
    """
    digits = match.group("int").replace(",", "").lstrip("0") or "0"
    frac = (match.group("frac") or ".")[1:].rstrip("0")
    value = f"{digits}.{frac}" if frac else digits
    negative = match.group("sign") or match.group("sign2")
    return f"-{value}" if negative and value != "0" else value


def canonical_number(text: str) -> str | None:
    """Canonical string of `text` when it is one number (`"1,200.0"` -> `"1200"`), else None."""
    match = NUMBER_RE.fullmatch(text.strip())
    return canonical(match) if match else None


def last_number(text: str) -> str | None:
    """Canonical string of the last number in `text`, or None when there is none."""
    last = deque(NUMBER_RE.finditer(text), maxlen=1)
    return canonical(last[0]) if last else None


_ONES = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD_VALUES = {word: value for value, word in enumerate(_ONES)}
_WORD_VALUES.update({word: 20 + 10 * index for index, word in enumerate(_TENS)})
# "three", "twenty-one", "forty two"; not "one of", which names no number.
_NUMBER_WORD = re.compile(
    rf"\b(?P<tens>{'|'.join(_TENS)})(?:[- ](?P<unit>{'|'.join(_ONES[1:10])}))?\b"
    rf"|\b(?P<ones>{'|'.join(_ONES)})\b(?! of\b)"
)


def number_word_at(lowered: str, position: int) -> re.Match[str] | None:
    """A number written as an English word (zero to ninety-nine) at `position` of lower-cased
    text, or None; `word_value` reads it.

    >>> word_value(number_word_at("twenty-one boxes", 0))
    '21'
    >>> number_word_at("one of them", 0) is None
    True
    """
    return _NUMBER_WORD.match(lowered, position)


def word_value(match: re.Match[str] | None) -> str | None:
    """The digits of a `number_word_at` match."""
    if match is None:
        return None
    if match.group("ones"):
        return str(_WORD_VALUES[match.group("ones")])
    unit = match.group("unit")
    return str(_WORD_VALUES[match.group("tens")] + (_WORD_VALUES[unit] if unit else 0))
