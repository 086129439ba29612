"""Replies still unfinished at a phase's budget are right-censored, not wrong: accuracy bounds.

A reply that is `empty` or `unfinished` when its phase ends (the classes the protocol re-asks)
was stopped before the model gave its final word, so its outcome is unknown, not wrong. The
headline counts it as not correct, which is the worst case; counting every one correct is the
best case. Between the two lie all the accuracies the run is consistent with (worst-case
bounds in the sense of Manski's partial identification, *Partial Identification of Probability
Distributions*, 2003), and the accuracy on the replies that did finish is what a model reaches
when it is given enough room, assuming the cut replies resemble the finished ones.

Per phase, over every unit (the headline's denominator, errors and pending units included):

- `lower` = correct / units (the headline accuracy: every unfinished reply wrong),
- `upper` = (correct + unfinished) / units (every unfinished reply right),
- `finished_accuracy` = correct / (correct + wrong + no_answer) (None when none finished).

The adaptive phase's bounds are after the last budget; the fixed phase's after the first.
"""

from __future__ import annotations

import msgspec

from thinkeval.results.counts import Counts, OutcomeCounts


class CensoredAccuracy(msgspec.Struct, kw_only=True, frozen=True):
    """One phase's accuracy with its unfinished replies counted wrong, then right."""

    units: int
    unfinished: int  # empty or unfinished when the phase ended
    lower: float  # every unfinished reply wrong: the headline accuracy
    upper: float  # every unfinished reply right
    finished: int  # replies that finished: correct, wrong or no_answer
    finished_accuracy: float | None  # correct / finished; None when none finished


class CensoringBlock(msgspec.Struct, kw_only=True, frozen=True):
    """The bounds after the first budget (`fixed`) and after the last (`adaptive`)."""

    fixed: CensoredAccuracy
    adaptive: CensoredAccuracy


def censored(counts: OutcomeCounts, units: int) -> CensoredAccuracy:
    """The bounds of one phase's outcome counts over `units`.

    >>> b = censored(OutcomeCounts(correct=6, wrong=1, no_answer=1, unfinished=1, empty=1), 10)
    >>> b.lower, b.upper, b.finished_accuracy
    (0.6, 0.8, 0.75)
    """
    unfinished = counts.empty + counts.unfinished
    finished = counts.correct + counts.wrong + counts.no_answer
    return CensoredAccuracy(
        units=units,
        unfinished=unfinished,
        lower=counts.correct / units if units else 0.0,
        upper=(counts.correct + unfinished) / units if units else 0.0,
        finished=finished,
        finished_accuracy=counts.correct / finished if finished else None,
    )


def censoring_block(counts: Counts) -> CensoringBlock:
    """The bounds of one model on one task (a summary's counts)."""
    return CensoringBlock(
        fixed=censored(counts.fixed, counts.total),
        adaptive=censored(counts.adaptive, counts.total),
    )
