"""What a comparison row carries beside its decision: truncation parity (and the refusal at a
declared gap), the deployment's noise floor, and the paired behaviour deltas.

`results.compare.compare_phase` decides a row; `with_deltas` adds these from the same sides,
on the same compared questions (both sides answered every repeat).
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import numpy as np

from thinkeval.results.compare import CORRECT, ERROR, PhaseData, SideData
from thinkeval.results.compare_behaviour import Stratum, behaviour
from thinkeval.results.compare_model import PhaseComparison
from thinkeval.results.compare_noise import NoiseFloorFlips, noise_floor
from thinkeval.results.compare_parity import truncation_parity
from thinkeval.results.compare_stats import ALPHA


@dataclass(frozen=True)
class Copy:
    """The baseline's A/A copy on one task: its outcome codes per phase, aligned with the
    baseline's questions and repeats (`PENDING` where it was not asked)."""

    model: str
    codes: dict[str, np.ndarray]


def _floor(
    row: PhaseComparison, b: PhaseData, c: PhaseData, copy: Copy | None,
    compared: np.ndarray, alpha: float,
) -> NoiseFloorFlips | None:  # fmt: skip
    shown = compared
    copy_codes = None
    if copy is not None:
        copy_codes = copy.codes[row.phase]
        shown = compared & (copy_codes < ERROR).all(axis=1)
    return noise_floor(
        b.codes[shown] == CORRECT,
        c.codes[shown] == CORRECT,
        None if copy_codes is None else copy_codes[shown] == CORRECT,
        None if copy is None else copy.model,
        row.se,
        alpha,
    )


def _behaviour(
    b: PhaseData, c: PhaseData, solved: np.ndarray, compared: np.ndarray, alpha: float
) -> list[Stratum] | None:
    if b.labels is None or c.labels is None:
        return None
    reported = (b.reasoning[compared] >= 0).all() and (c.reasoning[compared] >= 0).all()
    lengths = (b.reasoning, c.reasoning) if reported else (b.completion, c.completion)
    return behaviour(
        (lengths[0][compared], lengths[1][compared]),
        "reasoning tokens" if reported else "completion tokens",
        (b.labels[compared], c.labels[compared]),
        solved[compared],
        alpha,
    )


def with_deltas(
    row: PhaseComparison,
    base: SideData,
    cand: SideData,
    copy: Copy | None = None,
    max_gap: float | None = None,
    alpha: float = ALPHA,
) -> PhaseComparison:
    """`row` with its truncation parity (its decision `refused` when the gap in unfinished
    rates exceeds `max_gap`), its noise floor (from the A/A `copy` of the baseline, aligned
    with it, or the baseline's repeats) and its behaviour deltas."""
    b, c = base.phases[row.phase], cand.phases[row.phase]
    compared = np.asarray(((b.codes < ERROR) & (c.codes < ERROR)).all(axis=1))
    parity = truncation_parity(b.codes[compared], c.codes[compared], alpha, max_gap)
    decision = row.decision
    if parity.refused:
        parity, decision = msgspec.structs.replace(parity, set_aside=decision), "refused"
    solved = (base.phases["adaptive"].codes == CORRECT).mean(axis=1)
    return msgspec.structs.replace(
        row,
        decision=decision,
        truncation=parity,
        floor=_floor(row, b, c, copy, compared, alpha),
        behaviour=_behaviour(b, c, solved, compared, alpha),
    )
