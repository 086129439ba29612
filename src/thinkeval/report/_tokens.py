"""Token accounting: what each phase cost the server, and how far a run is from its floor.

The floor is the tokens a single run at B2 would have generated for the same replies: each
unit's counted reply (the retry's for a retried unit, else the fixed one's) generated once. A
re-ask generates a retried unit's first B1 tokens twice; a continuation (`retry: continue`)
generates them once and prefills them again instead.
"""

from __future__ import annotations

import numpy as np

from thinkeval.report._cells import Collection, ModelTask
from thinkeval.report._model import TokenRow
from thinkeval.report._usage import ALL_TASKS
from thinkeval.results.timing import Timing


def _floor(mt: ModelTask) -> int:
    fixed, retry = mt.fixed, mt.retry
    last = np.where(mt.candidate & retry.ok, retry.completion, fixed.completion)
    counted = fixed.ok | (mt.candidate & retry.ok)
    return int(last[counted & (last >= 0)].sum())


def _row(model: str, task: str, cells: list[ModelTask]) -> TokenRow:
    fixed = Timing.combined(mt.timing["fixed"] for mt in cells)
    retry = Timing.combined(mt.timing["retry"] for mt in cells)
    generated = fixed.generated_tokens + retry.generated_tokens
    floor = sum(_floor(mt) for mt in cells)
    if not retry.requests:
        mode = "-"
    elif retry.continued == retry.requests:
        mode = "continue"
    else:
        mode = "reask" if not retry.continued else "mixed"
    return TokenRow(
        model=model,
        task=task,
        retry=mode,
        fixed_prompt=fixed.prompt_tokens,
        fixed_generated=fixed.generated_tokens,
        retry_prompt=retry.prompt_tokens,
        retry_generated=retry.generated_tokens,
        generated=generated,
        floor=floor,
        ratio=generated / floor if floor else None,
    )


def token_rows(data: Collection) -> list[TokenRow]:
    """Per model, a row per task and one for all its tasks."""
    rows = []
    for model in data.models:
        cells = [data.cells[(model, task)] for task in data.tasks]
        rows += [_row(model, mt.task, [mt]) for mt in cells]
        if len(cells) > 1:
            rows.append(_row(model, ALL_TASKS, cells))
    return rows
