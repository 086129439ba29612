"""The comparison with a baseline as tables and sentences: shared by the report's section and
`thinkeval compare`, so both show the same figures with the same rounding."""

from __future__ import annotations

from thinkeval.report._format import (
    DASH,
    Block,
    Section,
    number,
    p_value,
    percent,
    points,
    samples_link,
    shown_ids,
    signed,
    table,
    tokens,
)
from thinkeval.report._tables_compare_deltas import REFUSED, deltas_blocks, parity_phrase
from thinkeval.results.compare_model import AGGREGATE, Candidate, CompareResult, PhaseComparison

NOT_LIKE_FOR_LIKE = "not like for like"
# The columns of the flip table that open the flipped samples in the page's sample browser.
LOST_COLUMN, GAINED_COLUMN = 3, 4


def _ratio(value: float | None) -> str:
    return DASH if value is None else f"{value:.4f}"


def margin_text(row: PhaseComparison) -> str:
    if row.margin.recovery is not None:
        return f"recovery ≥ {row.margin.recovery:g}"
    return f"±{100 * (row.margin.points or 0):.2f} pp"


def _decision(row: PhaseComparison, candidate: Candidate) -> str:
    shown = REFUSED if row.decision == "refused" else row.decision
    return shown + ("" if candidate.like_for_like else f" ({NOT_LIKE_FOR_LIKE})")


def _cells(row: PhaseComparison, candidate: Candidate, confidence: str) -> tuple[str, ...]:
    base = percent(row.baseline.accuracy) if row.baseline else DASH
    cand = percent(row.candidate.accuracy) if row.candidate else DASH
    recovered = (
        f"{_ratio(row.recovery)} [{_ratio(row.recovery_low)}, {_ratio(row.recovery_high)}]"
        if row.recovery is not None
        else DASH
    )
    return (
        row.task,
        str(row.questions),
        base,
        cand,
        f"{points(row.difference)} [{signed(row.low)}, {signed(row.high)}]",
        recovered,
        margin_text(row),
        _decision(row, candidate),
        p_value(row.p_value),
        points(row.mde).lstrip("+"),
        DASH if row.questions_needed is None else str(row.questions_needed),
    )


def _p(value: float) -> str:
    shown = p_value(value)
    return shown.replace("< ", "p < ") if shown.startswith("<") else f"p = {shown}"


def sentence(row: PhaseComparison, result: CompareResult, candidate: Candidate) -> str:
    """The row in words: the decision, then the paired test beside it (never mixed in)."""
    where = f"{row.task}, {row.phase}"
    level = f"{100 * (1 - 2 * result.alpha):g}% CI"
    head = (
        f"{where}: {candidate.model} − {result.baseline} = {points(row.difference)} "
        f"({level} {signed(row.low)} to {signed(row.high)} pp) → {_decision(row, candidate)} "
        f"at {margin_text(row)}."
    )
    if row.settle and row.decision != "refused":  # a refusal is settled by the budget
        head += f" To settle it: {row.settle}."
    head += parity_phrase(row)
    if row.significant:
        test = f" Paired test ({row.test}): {_p(row.p_value)}, a significant difference."
    else:
        test = (
            f" Paired test ({row.test}): {_p(row.p_value)}, no significant difference; "
            f"this comparison detects {points(row.mde).lstrip('+')} with "
            f"{100 * result.power:g}% power (disagreement {percent(row.disagreement)})."
        )
    floor = ""
    if row.noise_floor is not None:
        floor = (
            f" Noise floor: {result.baseline} against itself across its "
            f"{row.noise_floor.repeats} repeats spreads {points(row.noise_floor.spread)} "
            f"(SD {points(row.noise_floor.sd).lstrip('+')})."
        )
    return head + test + floor


def _flip_rows(
    candidate: Candidate, baseline: str
) -> tuple[list[tuple[str, ...]], dict[tuple[int, int], str]]:
    rows: list[tuple[str, ...]] = []
    links: dict[tuple[int, int], str] = {}
    for row in candidate.rows:
        if row.flips is None:
            continue
        matrix, classes = row.flips.matrix, row.flips.classes
        lost = ", ".join(f"{classes[c]} {matrix[0][c]}" for c in range(1, len(classes)))
        gained = ", ".join(f"{classes[b]} {matrix[b][0]}" for b in range(1, len(classes)))
        index = len(rows)
        rows.append(
            (
                row.task,
                row.phase,
                str(sum(map(sum, matrix))),
                f"{len(row.flips.lost)} ({lost})",
                f"{len(row.flips.gained)} ({gained})",
                f"{row.baseline.errors if row.baseline else 0} / "
                f"{row.candidate.errors if row.candidate else 0}",
            )
        )
        for column, side in ((LOST_COLUMN, "b"), (GAINED_COLUMN, "a")):
            links[(index, column)] = samples_link(
                task=row.task, view="pair", a=candidate.model, b=baseline, phase=row.phase,
                disc=side,
            )  # fmt: skip
    return rows, links


def _cost_rows(candidate: Candidate) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for row in candidate.rows:
        for side in (row.baseline, row.candidate):
            if side is None:
                continue
            c = side.cost
            rows.append(
                (
                    row.task, row.phase, side.model, tokens(c.reasoning_p50),
                    tokens(c.reasoning_p90), tokens(c.completion_p50), tokens(c.completion_p90),
                    percent(c.hit_budget), str(c.retry_candidates),
                    number(c.latency_p50_s, 2), number(c.latency_p90_s, 2),
                )
            )  # fmt: skip
    return rows


def candidate_blocks(result: CompareResult, candidate: Candidate) -> list[Block]:
    """Everything about one candidate: header, family decision, table, sentences, flips, costs."""
    blocks = [Block(heading=f"{candidate.model} against the baseline {result.baseline}")]
    if not candidate.like_for_like:
        blocks.append(
            Block(
                text=f"{NOT_LIKE_FOR_LIKE.capitalize()} (--allow-mismatch): every verdict below "
                "compares models asked differently.",
                bullets=tuple(candidate.differences),
            )
        )
    blocks.append(
        Block(
            bullets=tuple(
                f"Overall, {o.phase}: {o.decision}"
                + ("" if candidate.like_for_like else f" ({NOT_LIKE_FOR_LIKE})")
                + f" ({o.method}: {o.reason})."
                for o in candidate.overall
            )
        )
    )
    level = f"{100 * (1 - 2 * result.alpha):g}%"
    for phase in ("fixed", "adaptive"):
        rows = [r for r in candidate.rows if r.phase == phase]
        rows += [r for r in candidate.aggregate if r.phase == phase]
        if not rows:
            continue
        blocks.append(Block(heading=f"{candidate.model}, {phase}"))
        columns: tuple[str, ...] = (
            "task", "n", "baseline", "candidate", f"Δ [{level} CI]", f"recovery [{level} CI]",
            "margin", "decision", "paired p", "MDE 80%", "n to settle",
        )  # fmt: skip
        blocks.append(Block(table=table(columns, [_cells(r, candidate, level) for r in rows])))
        bullets = [sentence(r, result, candidate) for r in rows if r.task != AGGREGATE]
        blocks.append(Block(bullets=tuple(bullets)))
    flips, links = _flip_rows(candidate, result.baseline)
    if flips:
        blocks.append(Block(heading=f"{candidate.model}: flips against {result.baseline}"))
        flip_columns = ("task", "phase", "paired units", "baseline right, candidate not",
                        "candidate right, baseline not", "errors B / C")  # fmt: skip
        blocks.append(Block(table=table(flip_columns, flips, text_columns=2, links=links)))
        blocks.append(
            Block(
                bullets=tuple(
                    f"{r.task}, {r.phase}: lost {shown_ids(r.flips.lost) or 'none'}; "
                    f"gained {shown_ids(r.flips.gained) or 'none'}."
                    for r in candidate.rows
                    if r.flips is not None and (r.flips.lost or r.flips.gained)
                )
            )
        )
    loops = loop_bullets(candidate, result.baseline)
    if loops:
        blocks.append(Block(heading=f"{candidate.model}: loops against {result.baseline}"))
        blocks.append(Block(bullets=tuple(loops)))
    blocks += deltas_blocks(result, candidate)
    blocks.append(Block(heading=f"{candidate.model}: cost against {result.baseline}"))
    cost_columns = ("task", "phase", "model", "reasoning p50", "reasoning p90", "completion p50",
                    "completion p90", "hit budget", "retry candidates", "latency p50 s",
                    "latency p90 s")  # fmt: skip
    blocks.append(Block(table=table(cost_columns, _cost_rows(candidate), text_columns=3)))
    return blocks


INTRO = (
    "Each candidate against the baseline at a margin declared before the run (default 1 point). Δ"
    " is candidate − baseline over questions (repeats clustered by question) with its {level} "
    "score interval (Tango): equivalent when it lies within ±margin (two one-sided tests at "
    "{alpha:g}), non-inferior when its lower bound is above −margin, inferior when its upper "
    "bound is below −margin, inconclusive when it straddles −margin. Recovery is candidate / "
    "baseline. The paired test of 'no difference' is reported beside the decision, with the "
    "smallest difference it detects at {power:g}% power (MDE) and the questions needed to settle "
    "the margin at the disagreement observed. Flips pair units of the same question and repeat "
    "(errors apart). See docs/comparing.md."
)


def compare_section(result: CompareResult) -> Section:
    blocks = [b for c in result.candidates for b in candidate_blocks(result, c)]
    intro = INTRO.format(
        level=f"{100 * (1 - 2 * result.alpha):g}%", alpha=result.alpha, power=100 * result.power
    )
    return Section("compare", f"Against the baseline {result.baseline}", intro, blocks)


def loop_bullets(candidate: Candidate, baseline: str) -> list[str]:
    """`thinkeval compare`: per task, how many more samples the candidate's replies loop on."""
    bullets = []
    for row in candidate.rows:
        if row.phase != "adaptive" or row.baseline is None or row.candidate is None:
            continue
        mine, theirs = row.candidate.extra, row.baseline.extra
        if "loops" not in mine or "loops" not in theirs:
            continue
        more = mine["loops"] - theirs["loops"]
        fixed = mine.get("loops_fixed", 0) - theirs.get("loops_fixed", 0)
        bullets.append(
            f"{row.task}: {candidate.model} loops on {more:+d} samples against {baseline} "
            f"after the retry ({mine['loops']} vs {theirs['loops']}; fixed phase {fixed:+d}), "
            "counted over every sample of each side (docs/diagnosis.md)."
        )
    return bullets
