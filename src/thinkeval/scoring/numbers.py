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
