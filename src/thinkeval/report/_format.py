"""Formatting shared by the report's tables: numbers as text, and the table/section shapes.

Markdown and HTML both render these, so the two always show the same figures with the same
rounding. Cells are plain text; each renderer escapes them for its own syntax.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

DASH = "–"  # shown where a number does not exist (no candidates, nothing timed)
ALL_TASKS = "all"  # the task of a row over every task of a model (usage, tokens)
SHOWN_IDS = 10  # sample ids listed under a comparison or a table; the browser has them all


@dataclass(frozen=True)
class Table:
    """A table of text cells; `numeric[i]` right-aligns column i.

    `warn` lists the rows whose numbers are incomplete (HTML highlights them); `links` maps a
    (row, column) cell to a place in the page's sample browser (HTML only); `wrap` lets long
    text cells wrap (HTML keeps number tables on one line per row).
    """

    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]
    numeric: tuple[bool, ...]
    warn: frozenset[int] = frozenset()
    links: dict[tuple[int, int], str] = field(default_factory=dict)
    wrap: bool = False


@dataclass(frozen=True)
class Block:
    """A sub-heading, a paragraph, a bullet list or a table inside a section."""

    heading: str | None = None
    text: str | None = None
    bullets: tuple[str, ...] = ()
    table: Table | None = None


@dataclass(frozen=True)
class Section:
    """One numbered section: `key` names it for anchors and for the plots HTML adds."""

    key: str
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)


def percent(value: float | None) -> str:
    """`0.7945` -> `79.45%`; a dash for no value."""
    if value is None or math.isnan(value):
        return DASH
    return f"{100.0 * value:.2f}%"


def points(value: float | None) -> str:
    """A difference of proportions in signed percentage points: `0.1646` -> `+16.46 pp`."""
    if value is None:
        return DASH
    return f"{round(100.0 * value, 2) + 0.0:+.2f} pp"


def number(value: float | None, digits: int = 1) -> str:
    """A plain number with fixed decimals, or a dash."""
    return DASH if value is None else f"{value:.{digits}f}"


def tokens(value: float | None) -> str:
    """A token count or percentile: `628`, `628.5`; a dash for no value."""
    if value is None:
        return DASH
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


def p_value(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def interval(low: float, high: float) -> str:
    """A Wilson interval as `[62.50, 87.68]` (percent; the accuracy beside it carries the %)."""
    if math.isnan(low) or math.isnan(high):
        return f"[{DASH}]"
    return f"[{100.0 * low:.2f}, {100.0 * high:.2f}]"


def signed(value: float) -> str:
    """A proportion as signed points without the unit: `-0.225` -> `-22.50`."""
    return f"{round(100.0 * value, 2) + 0.0:+.2f}"


def table(
    columns: tuple[str, ...],
    rows: Sequence[tuple[str, ...]],
    text_columns: int = 1,
    warn: frozenset[int] = frozenset(),
    links: dict[tuple[int, int], str] | None = None,
    wrap: bool = False,
) -> Table:
    """Columns after the first `text_columns` are numbers and right-aligned."""
    numeric = tuple(i >= text_columns for i in range(len(columns)))
    return Table(columns, list(rows), numeric, warn, links or {}, wrap)


def shown_ids(ids: list[str], most: int = SHOWN_IDS) -> str:
    """The first ids, and how many more there are.

    >>> shown_ids(["a", "b", "c"], 2)
    'a, b … and 1 more'
    """
    more = len(ids) - most
    return ", ".join(ids[:most]) + (f" … and {more} more" if more > 0 else "")


def samples_link(**state: str) -> str:
    """A link into the page's sample browser with this view state (see page.js).

    >>> samples_link(task="gsm8k", a="m 1", b="m2", disc="a")
    '#samples?task=gsm8k&a=m+1&b=m2&disc=a'
    """
    return "#samples?" + urlencode(state)
