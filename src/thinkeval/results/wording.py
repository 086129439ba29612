"""The wording of a result cell, shared by the terminal's tables and the report: the same
counts read the same way in both, including when a result is incomplete."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from thinkeval.results.summary import Counts

# A refusal (client/refusals.py): asked once, never again, counted as not correct.
REFUSED_EXPLAINED = (
    "samples the server refused for good (prompt over its context window, a parameter it "
    "rejects) count as not correct; the run ends with a line per model saying which"
)
# What an `error` is, for the line under a table that has some: not a wrong answer.
ERRORS_EXPLAINED = (
    "errors are requests that failed (HTTP or transport) after the client's retries: not the "
    "model's answer, yet counted as not correct; run the same command again to re-ask only those"
)

PENDING_EXPLAINED = (
    "pending samples have no reply yet and count as not correct; run the same command again to "
    "finish them"
)


def cell(correct: int, total: int) -> str:
    """`185/233 = 79.40%`."""
    return f"{correct}/{total} = {_percent(correct, total)}%"


def _percent(count: int, total: int) -> Decimal:
    if not total:
        return Decimal("0.00")
    return (Decimal(100 * count) / Decimal(total)).quantize(Decimal("0.01"), ROUND_HALF_EVEN)


def gain(fixed: int, adaptive: int, total: int) -> str:
    """`+16.45 pp`: the adaptive minus the fixed accuracy, in percentage points.

    Taken from the counts and then rounded, never from the two rounded cells beside it (which
    can be off by 0.01): 22 → 26 of 30 is 73.33% → 86.67%, a gain of +13.33 pp.

    >>> gain(22, 26, 30), gain(730, 1105, 1319), gain(5, 5, 0)
    ('+13.33 pp', '+28.43 pp', '+0.00 pp')
    """
    points = _percent(adaptive - fixed, total)
    return f"{points:+.2f} pp"


def missing(errors: int, pending: int) -> str:
    """`21 errors, 3 pending`: the samples without a reply, by cause ("" when there are none).

    >>> missing(21, 0), missing(1, 3), missing(0, 0)
    ('21 errors', '1 error, 3 pending', '')
    """
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if pending:
        parts.append(f"{pending} pending")
    return ", ".join(parts)


def incomplete(errors: int, pending: int) -> str:
    """The mark an accuracy carries while some of its samples have no reply ("" when none).

    >>> cell(15, 40) + incomplete(21, 0)
    '15/40 = 37.50% (incomplete: 21 errors)'
    """
    what = missing(errors, pending)
    return f" (incomplete: {what})" if what else ""


def refused_note(refused: int) -> str:
    """` (1 refused)`: samples the server refused for good count as not correct; say so."""
    return f" ({refused} refused)" if refused else ""


def fixed_cell(counts: Counts) -> str:
    """The fixed-budget accuracy cell, marked when samples have no fixed reply."""
    fixed = counts.fixed
    return (
        cell(fixed.correct, counts.total)
        + incomplete(fixed.error, fixed.pending)
        + refused_note(fixed.refused)
    )


def adaptive_cell(counts: Counts) -> str:
    """The adaptive accuracy cell, marked when samples have no final reply (fixed or retry)."""
    adaptive = counts.adaptive
    return (
        cell(adaptive.correct, counts.total)
        + incomplete(adaptive.error, adaptive.pending)
        + refused_note(adaptive.refused)
    )


def budgets_cell(counts: Counts, b1: int, b2: int) -> str:
    """`2048→8192`, with the budget in effect where max_model_len cut one: `2048→8192 (≤4000)`."""
    shown = []
    for block, budget in ((counts.fixed, b1), (counts.retry, b2)):
        cut = block.clamped_to
        shown.append(f"{budget} (≤{cut})" if block.clamped and cut is not None else f"{budget}")
    return "→".join(shown)


def clamp_note(model: str, task: str, counts: Counts, b1: int, b2: int) -> str:
    """One sentence per phase whose budget the server's max_model_len cut ("" when none)."""
    notes = []
    for phase, block, budget in (("fixed", counts.fixed, b1), ("retry", counts.retry, b2)):
        if block.clamped and block.clamped_to is not None:
            replies = "reply was" if block.clamped == 1 else "replies were"
            notes.append(
                f"{model} on {task}: the {phase} budget {budget} did not fit the server's "
                f"max_model_len, so {block.clamped} {replies} asked with max_tokens cut to at "
                f"most {block.clamped_to} (the journal's clamped_from)"
            )
    return "; ".join(notes)


def gain_cell(counts: Counts) -> str:
    """The gain, marked when either accuracy it is taken from is incomplete."""
    text = gain(counts.fixed.correct, counts.adaptive.correct, counts.total)
    return text if counts.complete else f"{text} (incomplete)"
