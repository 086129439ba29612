"""The report's sections as plug-ins: one module each, found here, in one ordered registry.

Each module defines `SECTION`, a `report._section.ReportSection`; `registry()` imports every
module of this package once and orders them by `place`. A new section is one module here and
its test (docs/reports.md says how).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache
from typing import Any

from thinkeval.report._section import ReportSection

__all__ = ["ordered", "registry"]


@cache
def registry() -> tuple[ReportSection[Any], ...]:
    """Every section of this package, in reading order."""
    found: list[ReportSection[Any]] = []
    for module in pkgutil.iter_modules(__path__):
        section = importlib.import_module(f"{__name__}.{module.name}").SECTION
        if not isinstance(section, ReportSection):
            raise TypeError(f"{__name__}.{module.name}.SECTION is not a ReportSection")
        found.append(section)
    return ordered(found)


def ordered(found: Iterable[ReportSection[Any]]) -> tuple[ReportSection[Any], ...]:
    """`found` in reading order; a key or place used twice is a programming error."""
    found = list(found)
    for what in ("key", "place"):
        values = [getattr(section, what) for section in found]
        twice = sorted({str(v) for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"report sections share a {what}: {', '.join(twice)}")
    return tuple(sorted(found, key=lambda section: section.place))
