"""Number formatting and table rows for RESULTS.md; a missing value shows as an en dash."""

from __future__ import annotations

from collections.abc import Sequence

MISSING = "–"


def fmt(value: float | None, digits: int = 1) -> str:
    """`value` with thousands separators and `digits` decimals."""
    return MISSING if value is None else f"{value:,.{digits}f}"


def fmt_int(value: int | None) -> str:
    """`value` as plain digits."""
    return MISSING if value is None else str(value)


def ratio(value: float | None, base: float | None) -> str:
    """`value / base` as `1.23×`, when both are known and `base` is positive."""
    if value is None or base is None or base <= 0:
        return MISSING
    return f"{value / base:.2f}×"


def row(cells: Sequence[str]) -> str:
    """One Markdown table row."""
    return "| " + " | ".join(cells) + " |"
