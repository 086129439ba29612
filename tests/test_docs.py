"""The examples in the public docstrings run as written."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "thinkeval",
        "thinkeval.api",
        "thinkeval.scoring.kinds",
        "thinkeval.scoring.kinds.exact",
        "thinkeval.scoring.kinds.regex",
        "thinkeval.scoring.lenient",
        "thinkeval.scoring.state",
        "thinkeval.scoring.strict",
        "thinkeval.scoring.choice_answers",
        "thinkeval.scoring.math_answers",
        "thinkeval.scoring.arithmetic",
        "thinkeval.scoring.text",
        "thinkeval.scoring.judge",
        "thinkeval.sim.judge",
        # Its examples show real rows (GSM8K's first gold, C-Eval's first ids).
        pytest.param("thinkeval.tasks", marks=pytest.mark.real_data),
        "thinkeval.tasks.registry",
        "thinkeval.store.protocol_rules",
        "thinkeval.store.counted",
        "thinkeval.run.ordering",
        "thinkeval.client.limits",
        "thinkeval.client.profiles.vllm",
        "thinkeval.results.stats",
        "thinkeval.config",
        "thinkeval.config.tasks",
        "thinkeval.config.resolved",
        "thinkeval.tasks.hub",
        "thinkeval.tasks.source",
        "thinkeval.run.from_flags",
        "thinkeval.run.identity",
        "thinkeval.run.selection",
        "thinkeval.store.shard",
        "thinkeval.results.wording",
        "thinkeval.urls",
        "thinkeval.report._format",
        "thinkeval.report._markdown",
        "thinkeval.report._samples",
        "thinkeval.report.viewer",
        "thinkeval.scoring.latex",
        "thinkeval.scoring.math_statements",
        "thinkeval.scoring.sentences",
        "thinkeval.scoring.json_answer",
        "thinkeval.scoring.numbers",
        "thinkeval.scoring.kinds.math",
        "thinkeval.results.repeats",
        "thinkeval.sim.maths",
        "thinkeval.sim.behaviour",
    ],
)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


ROOT = Path(__file__).parent.parent
# [text](target) with a relative target: no scheme, no in-page anchor.
_LINK = re.compile(r"\]\((?![a-z]+:|#)([^)\s]+)\)")


@pytest.mark.parametrize(
    "page", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name
)
def test_relative_links_lead_to_files(page: Path) -> None:
    targets = [m.group(1).split("#")[0] for m in _LINK.finditer(page.read_text("utf-8"))]
    missing = [t for t in targets if t and not (page.parent / t).exists()]
    assert missing == []
