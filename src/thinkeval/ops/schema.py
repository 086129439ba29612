"""`thinkeval schema`: the JSON Schema of each file a run writes, for auditors and other tools.

The schemas are generated from the structs that read and write those files, so they cannot
drift from them; `docs/schemas/` holds a copy of each, which a test keeps equal.
"""

from __future__ import annotations

from typing import Any

import msgspec

from thinkeval.config import RunConfig
from thinkeval.ops.audit import AuditReport
from thinkeval.records import Attempt
from thinkeval.results.compare_model import CompareResult
from thinkeval.results.sequential_run import DecideRecord
from thinkeval.results.summary import Summary
from thinkeval.store.heartbeat import Heartbeat
from thinkeval.store.run_record import RunRecord

# name: (struct, the file it describes)
DOCUMENTS: dict[str, tuple[type[msgspec.Struct], str]] = {
    "attempt": (Attempt, "one line of journal/<writer>.jsonl"),
    "summary": (Summary, "summary.json"),
    "config": (
        RunConfig,
        "a run config (YAML; a bare task name is short for {name: ...})",
    ),
    "run": (
        RunRecord,
        "config.json: the config a run was started with, resolved per task (budgets, repeats, "
        "version, prompt digest, data source), URLs redacted and no API keys",
    ),
    "heartbeat": (Heartbeat, "status/<writer>.json: a running process's heartbeat"),
    "compare": (CompareResult, "`thinkeval compare --json`: candidates against a baseline"),
    "decide": (
        DecideRecord,
        "decide.json (and `thinkeval compare --json` on a decide: run): the order, looks, stop "
        "and sequential verdicts",
    ),
    "audit": (AuditReport, "`thinkeval check --audit --json`: pass/fail per server property"),
}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of document `name` (`attempt`, `summary`, `config`).

    >>> json_schema("attempt")["$defs"]["Attempt"]["properties"]["phase"]
    {'enum': ['fixed', 'retry']}
    """
    struct, describes = DOCUMENTS[name]
    schema = msgspec.json.schema(struct)
    if name == "config":
        _as_users_write_it(schema["$defs"])
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$comment"] = f"thinkeval: {describes}"
    return schema


def _as_users_write_it(defs: dict[str, Any]) -> None:
    """The run config's schema as a YAML file is written, not as the struct holds it once loaded
    (`config.parse_config`): a task is a bare name or a mapping; a mapping names its task, or
    takes the name from its `file` or `define`; `definition` is what loading resolves, which a
    user may not write."""
    tasks = defs["RunConfig"]["properties"]["tasks"]
    tasks["items"] = {"anyOf": [{"type": "string"}, tasks["items"]]}
    selection = defs["TaskSelection"]
    del selection["properties"]["definition"]
    selection.pop("required", None)
    selection["anyOf"] = [{"required": [key]} for key in ("name", "file", "define")]


def render(name: str) -> str:
    """`json_schema(name)` as indented JSON with sorted keys, ending in a newline."""
    encoded = msgspec.json.encode(json_schema(name), order="sorted")
    return msgspec.json.format(encoded, indent=2).decode() + "\n"
