"""After a run: did the servers keep to the thinking budget the config asked for?

Servers are known to accept a thinking-budget field and silently drop it, so the run reads the
reasoning lengths it recorded (`usage.reasoning_tokens`) of every model with
`reasoning.budget` and says, per model, whether they kept to it (client/reasoning.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from thinkeval.client.reasoning import FIELDS, budget_kept
from thinkeval.config import ModelConfig
from thinkeval.store.counted import Journals


def budget_lines(run_dir: Path, models: Iterable[ModelConfig]) -> list[str]:
    """One line per model with a thinking budget: kept, not kept, or not checkable."""
    budgets = {
        m.name: (m.reasoning.budget, m.api)
        for m in models
        if m.reasoning is not None and m.reasoning.budget is not None
    }
    if not budgets:
        return []
    lengths: dict[str, list[int | None]] = {name: [] for name in budgets}
    with Journals(run_dir) as journals:
        for attempt, _ in journals.located():
            if attempt.model in lengths and attempt.error is None:
                lengths[attempt.model].append(attempt.usage.reasoning_tokens)
    lines = []
    for name, (budget, api) in budgets.items():
        over, known = budget_kept(budget, lengths[name])
        field = FIELDS[api][0]
        if not known:
            lines.append(
                f"{name}: reasoning budget {budget} ({field}) cannot be checked: the server "
                "reported no usage.reasoning_tokens"
            )
        elif over:
            lines.append(
                f"{name}: reasoning budget {budget} ({field}) NOT kept: {over} of {known} "
                "replies reasoned longer (the server may accept the field and ignore it)"
            )
        else:
            lines.append(f"{name}: reasoning budget {budget} ({field}) kept by all {known} replies")
    return lines
