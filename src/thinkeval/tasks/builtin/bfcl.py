"""BFCL (Berkeley Function Calling Leaderboard v4), single turn: 3,000+ questions asked with
`tools`, answered by the server's tool parser (`tool_calls`), judged by BFCL's own AST checker.

One subset per BFCL category (simple_python ... live_relevance, `tasks.bfcl.CATEGORIES`), asked
round-robin over them; data and checker from the pinned bfcl-eval release (docs/tasks.md).
"""

from __future__ import annotations

import functools

from thinkeval.scoring.kinds.tool_calls import ToolCallsKind
from thinkeval.tasks.bfcl import CATEGORIES, PREFIX, bfcl_sample, category_rows, interleave
from thinkeval.tasks.spec import DataFile, TaskSpec

SPEC = TaskSpec(
    name="bfcl",
    version="1",
    description="BFCL v4 single-turn function calling (13 categories), BFCL's AST checker",
    files=tuple(
        DataFile(
            f"bfcl-eval/data/{PREFIX}_{category}.json",
            subset=category,
            format="jsonl",
            rows=functools.partial(category_rows, category),
        )
        for category in CATEGORIES
    ),
    sample=bfcl_sample,
    answer=ToolCallsKind(),
    lenient="bfcl",  # BFCL's own runner: the parsed calls, whatever the finish_reason
    budgets=(2048, 8192),
    ids_from_data=True,
    assemble=interleave,  # round-robin over the categories: a limit samples every one
    prompt_source="BFCL's question with its functions as OpenAI tools (its OpenAI FC handler)",
    sim_flavour="tool_calls",
    suite="tools",
    reply_tokens=800,
)
