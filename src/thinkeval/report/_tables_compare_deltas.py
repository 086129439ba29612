"""A candidate's truncation parity, noise floor and behaviour deltas as tables and sentences:
shared by the report's comparison section and `thinkeval compare` (same figures, same
rounding), beside the decision tables of `_tables_compare`."""

from __future__ import annotations

from thinkeval.report._format import DASH, Block, percent, points, signed, table
from thinkeval.results.compare_behaviour import LengthRatio, Stratum
from thinkeval.results.compare_model import Candidate, CompareResult, PhaseComparison
from thinkeval.results.compare_parity import TruncationParity

REFUSED = "refused: truncation parity"
# A stratum's length ratio is pointed out when its interval lies above this.
LONGER = 1.0


def _span(low: float, high: float) -> str:
    return f"[{signed(low)}, {signed(high)}]"


def _bounds(side: TruncationParity, which: str) -> str:
    bounds = side.baseline if which == "b" else side.candidate
    return f"{percent(bounds.lower)} – {percent(bounds.upper)}"


def parity_word(parity: TruncationParity) -> str:
    if parity.refused:
        return f"refused (gap > {points(parity.max_gap).lstrip('+')})"
    return "differs" if parity.differs else "parity"


def parity_phrase(row: PhaseComparison) -> str:
    """A sentence's note on truncation: why a row was refused, or that the rates differ."""
    parity = row.truncation
    if parity is None or not (parity.refused or parity.differs):
        return ""
    rates = (
        f"unfinished {percent(parity.candidate_rate)} against {percent(parity.baseline_rate)}, "
        f"gap {points(parity.gap)} {_span(parity.low, parity.high)}"
    )
    if parity.refused:
        return (
            f" No verdict: {rates} exceeds the declared ±{points(parity.max_gap).lstrip('+')}"
            f" (the interval alone said {parity.set_aside}); a larger retry budget, or both"
            " models cut alike, settles it."
        )
    return f" Truncation differs ({rates}): part of Δ is the budget, not the answers."


def _parity_rows(candidate: Candidate) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for row in candidate.rows:
        p = row.truncation
        if p is None:
            continue
        rows.append(
            (
                row.task, row.phase, percent(p.baseline_rate), percent(p.candidate_rate),
                f"{points(p.gap)} {_span(p.low, p.high)}", _bounds(p, "b"),
                percent(p.baseline.finished_accuracy), _bounds(p, "c"),
                percent(p.candidate.finished_accuracy), parity_word(p),
            )
        )  # fmt: skip
    return rows


def _floor_rows(candidate: Candidate) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for row in candidate.rows:
        f = row.floor
        if f is None:
            continue
        aa = DASH
        if f.aa_difference is not None and f.aa_low is not None and f.aa_high is not None:
            aa = f"{points(f.aa_difference)} {_span(f.aa_low, f.aa_high)}"
        rows.append(
            (
                row.task, row.phase, f.source, f"{percent(f.flip_rate)} "
                f"[{percent(f.low)}, {percent(f.high)}]", percent(f.candidate_flip_rate),
                f"{points(f.excess)} {_span(f.excess_low, f.excess_high)}", aa,
                points(row.mde).lstrip("+"),
                DASH if f.mde_with_floor is None else points(f.mde_with_floor).lstrip("+"),
            )
        )  # fmt: skip
    return rows


def _ratio(length: LengthRatio | None) -> str:
    if length is None:
        return DASH
    if length.low is None or length.high is None:
        return f"×{length.ratio:.3f}"
    return f"×{length.ratio:.3f} [{length.low:.3f}, {length.high:.3f}]"


def _behaviour_rows(candidate: Candidate) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for row in candidate.rows:
        for s in row.behaviour or []:
            rates = [f"{points(r.difference)} {_span(r.low, r.high)}" for r in s.rates]
            measure = s.length.measure if s.length else DASH
            rows.append(
                (row.task, row.phase, s.stratum, measure, str(s.questions), _ratio(s.length),
                 *rates)
            )  # fmt: skip
    return rows


def _longer(candidate: Candidate) -> list[str]:
    """Where the candidate reasons longer with confidence: strata whose whole ratio interval
    lies above 1, longest first."""
    found: list[tuple[float, PhaseComparison, Stratum]] = []
    for row in candidate.rows:
        for s in row.behaviour or []:
            if s.stratum != "all" and s.length and s.length.low and s.length.low > LONGER:
                found.append((s.length.ratio, row, s))
    found.sort(key=lambda item: -item[0])
    return [
        f"{row.task}, {row.phase}, {s.stratum} ({s.questions} questions): {_ratio(s.length)} "
        f"the baseline's {s.length.measure if s.length else ''}."
        for _, row, s in found
    ]


def deltas_blocks(result: CompareResult, candidate: Candidate) -> list[Block]:
    """Truncation parity, the noise floor and the behaviour deltas of one candidate."""
    level = f"{100 * (1 - 2 * result.alpha):g}%"
    name, base = candidate.model, result.baseline
    blocks: list[Block] = []
    parity = _parity_rows(candidate)
    if parity:
        declared = result.max_unfinished_gap
        rule = (
            f"a verdict is refused past a declared gap of ±{points(declared).lstrip('+')}"
            if declared is not None
            else "no gap is declared (max_unfinished_gap), so a difference is flagged, "
            "never refused"
        )
        blocks.append(Block(heading=f"{name}: truncation parity against {base}"))
        blocks.append(
            Block(
                text="Replies still empty or unfinished when the phase ended are censored, not "
                "wrong: each side's accuracy lies between its bounds (unfinished all wrong – "
                f"all right); 'finished' is the accuracy on finished replies. The gap is "
                f"candidate − baseline with its {level} paired score interval; 'differs' when "
                f"it excludes 0; {rule}."
            )
        )
        columns: tuple[str, ...] = (
            "task", "phase", "unfinished B", "unfinished C", f"gap [{level} CI]", "B bounds",
            "B finished", "C bounds", "C finished", "parity",
        )  # fmt: skip
        blocks.append(Block(table=table(columns, parity, text_columns=2)))
    floor = _floor_rows(candidate)
    if floor:
        blocks.append(Block(heading=f"{name}: noise floor of {base}"))
        blocks.append(
            Block(
                text="Flips are questions × repeats whose correctness differs. The floor is "
                f"{base} against itself (its A/A copy, or pairs of its repeats) with a {level} "
                "Wilson interval at the clustered effective size; excess is the candidate's "
                f"flips against {base} minus the floor's ({level} paired score interval). "
                "With an A/A copy, its accuracy difference gives a run-to-run shift that the "
                "MDE with floor adds in quadrature (docs/comparing.md#noise-floor-aa)."
            )
        )
        columns = ("task", "phase", "floor from", f"floor flips [{level} CI]", "candidate flips",
                   f"excess [{level} CI]", f"A/A Δ [{level} CI]", "MDE 80%",
                   "MDE with floor")  # fmt: skip
        blocks.append(Block(table=table(columns, floor, text_columns=3)))
    behaviour = _behaviour_rows(candidate)
    if behaviour:
        blocks.append(Block(heading=f"{name}: behaviour against {base}, by difficulty"))
        blocks.append(
            Block(
                text="Per question, candidate / baseline length (geometric mean, "
                f"{level} t interval of the mean log ratio), and the paired difference of the "
                f"share of replies the diagnosis labels loop, hesitation or found-then-lost "
                f"({level} score interval), over all compared questions and by how {base} "
                "did on them (its adaptive solve rate)."
            )
        )
        columns = ("task", "phase", "difficulty", "length", "n", f"length ratio [{level} CI]",
                   "loop Δ", "hesitation Δ", "found-then-lost Δ")  # fmt: skip
        blocks.append(Block(table=table(columns, behaviour, text_columns=4)))
        longer = _longer(candidate)
        blocks.append(
            Block(
                text=f"Where {name} reasons longer than {base} with confidence:"
                if longer
                else f"No difficulty stratum where {name} reasons longer with confidence.",
                bullets=tuple(longer),
            )
        )
    return blocks
