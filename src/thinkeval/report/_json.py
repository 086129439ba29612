"""The report as JSON: the whole `Report` object, minus the per-sample texts."""

from __future__ import annotations

import msgspec
import orjson

from thinkeval.report._model import Report


def render_json(report: Report) -> str:
    """Every number of the report (pairs, curves, usage included) as indented JSON.

    Keys are sorted and there is no timestamp, so the same runs give the same bytes. Values
    that do not exist (a Wilson bound on zero samples) are `null`.

    >>> text = render_json(build_report([Path("runs/demo")]))  # doctest: +SKIP
    """
    data = msgspec.to_builtins(report)
    data.pop("browser", None)
    if not data.get("replicas"):
        data.pop("replicas", None)  # a report without replicas reads as before
    for key, numbers in data.pop("plugins", {}).items():  # each section's numbers: its own key
        if key in data:
            raise ValueError(f"report section {key!r} would overwrite the report's {key!r}")
        data[key] = numbers
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"
