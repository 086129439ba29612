"""Section: what the requests cost the server, against a single run at B2.

Token accounting: what each phase cost the server, and how far a run is from its floor. The
floor is the tokens a single run at B2 would have generated for the same replies: each unit's
counted reply (the retry's for a retried unit, else the fixed one's) generated once. A re-ask
generates a retried unit's first B1 tokens twice; a continuation (`retry: continue`) generates
them once and prefills them again instead.
"""

from __future__ import annotations

import numpy as np

from thinkeval.report._cells import Collection, ModelTask
from thinkeval.report._format import ALL_TASKS, DASH, Block, Section, table
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.timing import Timing


class TokenRow(Frozen, frozen=True):
    """What one model's requests on one task (`task == "all"`: every task) cost the server.

    Prompt and generated tokens per phase, as the server processed them (a continuation
    prefills its carried tokens again and generates only the new ones); `floor` is what a
    single run at B2 would have generated for the same counted replies (each unit's last
    reply, generated once); `ratio` is generated / floor.
    """

    model: str
    task: str
    retry: str  # "reask", "continue", or "-" when nothing was retried
    fixed_prompt: int
    fixed_generated: int
    retry_prompt: int
    retry_generated: int  # what the adaptive phase added
    generated: int
    floor: int
    ratio: float | None


class TokensNumbers(SectionNumbers, frozen=True):
    tokens: list[TokenRow]  # per model and task, then per model over every task


def tokens_numbers(inputs: SectionInputs) -> TokensNumbers:
    return TokensNumbers(token_rows(inputs.data))


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


def tokens_section(found: list[TokenRow]) -> Section | None:
    """What each phase cost the server in tokens, against the floor of one run at B2."""
    if not found:
        return None
    rows = [
        (
            r.model,
            r.task,
            r.retry,
            str(r.fixed_prompt),
            str(r.fixed_generated),
            str(r.retry_prompt),
            str(r.retry_generated),
            str(r.generated),
            str(r.floor),
            DASH if r.ratio is None else f"{r.ratio:.3f}",
        )
        for r in found
    ]
    columns = (
        "model",
        "task",
        "retry",
        "fixed prompt",
        "fixed generated",
        "retry prompt",
        "retry generated (added)",
        "generated",
        "floor",
        "generated / floor",
    )
    return Section(
        "tokens",
        "Server tokens",
        "Prompt (prefill) and generated (decode) tokens the server processed per phase, for "
        "every successful request, from the usage it reported. Retry 'reask' asks a cut-off "
        "reply again from scratch at B2, generating its first B1 tokens twice; 'continue' "
        "carries it on from its token ids (docs/protocol.md), prefilling them again and "
        "generating only the new ones. The floor is what a single run at B2 would have "
        "generated for the same counted replies: each sample's last reply, generated once.",
        [Block(table=table(columns, rows, text_columns=3))],
    )


def shown(report: Report) -> Section | None:
    return tokens_section(SECTION.numbers(report).tokens)


SECTION = ReportSection(key="tokens", place=100, shown=shown, data=tokens_numbers)
