"""The report as JSON: the whole `Report` object, minus the per-sample texts."""

from __future__ import annotations

from typing import Any

import msgspec
import orjson

from thinkeval.report._model import Report
from thinkeval.report._section import SectionNumbers


def render_json(report: Report) -> str:
    """Every number of the report (pairs, curves, usage included) as indented JSON.

    Keys are sorted and there is no timestamp, so the same runs give the same bytes. Values
    that do not exist (a Wilson bound on zero samples) are `null`. Each section's numbers are
    written at the top level: a `SectionNumbers` struct field by field, anything else under the
    section's key.

    >>> text = render_json(build_report([Path("runs/demo")]))  # doctest: +SKIP
    """
    data = msgspec.to_builtins(msgspec.structs.replace(report, browser=None, plugins={}))
    del data["browser"], data["plugins"]
    for key, numbers in report.plugins.items():
        found: Any = msgspec.to_builtins(numbers)
        if isinstance(numbers, SectionNumbers):
            for name in numbers.unwritten:
                del found[name]
        else:
            found = {key: found}
        for name, value in found.items():
            if name in data:
                raise ValueError(f"report section {key!r} would overwrite the report's {name!r}")
            data[name] = value
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"
