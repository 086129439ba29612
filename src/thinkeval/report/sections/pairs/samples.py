"""Every pair of models compared on the samples both answered, with the samples that differ.

A sample counts in a comparison only when both models have an answer for it (a verdict, not a
transport error or nothing yet): a failed request says nothing about the model, and counting it
as wrong once made a server's errors read as a large, significant gap. What is left out is
counted per side and said in the row's sentence, with how to re-ask it.
"""

from __future__ import annotations

import itertools

import numpy as np

from thinkeval.report._model import Comparison
from thinkeval.report._samples import Catalog, discordant
from thinkeval.report.sections.pairs.rows import PairRow, PairSide
from thinkeval.results.columns import CORRECT, ERROR, PENDING
from thinkeval.results.stats import paired_bootstrap, wilson_interval
from thinkeval.results.wording import missing

CONFIDENCE = 0.95
PHASE_COLUMNS: dict[Comparison, str] = {"fixed": "row_fixed", "adaptive": "row_final"}


def pairs(catalog: Catalog, seed: int, resamples: int) -> tuple[list[PairRow], list[str]]:
    """Every pair of models per task asked once per question, fixed and adaptive; notes on pairs
    not compared (tasks asked more than once are compared over questions: `questions`)."""
    rows: list[PairRow] = []
    notes: list[str] = []
    tables = {phase: catalog.outcomes(column) for phase, column in PHASE_COLUMNS.items()}
    models = catalog.models
    for t, task in enumerate(catalog.tasks):
        if catalog.task_repeats[t] > 1:
            continue
        in_task = catalog.question_task == t
        sizes = (catalog.position[:, in_task] >= 0).sum(axis=1)
        for phase, table in tables.items():
            for a, b in itertools.combinations(range(len(models)), 2):
                asked = np.nonzero(in_task & (table[a] >= 0) & (table[b] >= 0))[0]
                if not len(asked):
                    if phase == "fixed":
                        notes.append(
                            f"{models[a]} and {models[b]} share no {task} samples: not compared."
                        )
                    continue
                first, second = table[a][asked], table[b][asked]
                if not ((first < ERROR) & (second < ERROR)).any():
                    notes.append(
                        f"{models[a]} and {models[b]}: no {task} sample has an answer from both "
                        f"({phase}), so they are not compared yet; run the same command again to "
                        "re-ask the samples with errors or no reply."
                    )
                    continue
                sides = ((a, first, int(sizes[a])), (b, second, int(sizes[b])))
                rows.append(_pair(catalog, task, phase, sides, asked, seed, resamples))
    return rows, notes


def _side(model: str, correct: np.ndarray, codes: np.ndarray) -> PairSide:
    k, n = int(correct.sum()), len(correct)
    low, high = wilson_interval(k, n, CONFIDENCE)
    return PairSide(
        model=model,
        correct=k,
        accuracy=k / n,
        wilson_low=low,
        wilson_high=high,
        errors=int((codes == ERROR).sum()),
        pending=int((codes == PENDING).sum()),
    )


def _pair(
    catalog: Catalog,
    task: str,
    phase: Comparison,
    sides: tuple[tuple[int, np.ndarray, int], tuple[int, np.ndarray, int]],
    asked: np.ndarray,
    seed: int,
    resamples: int,
) -> PairRow:
    """One comparison; `sides` holds each model's index, its outcome codes on the `asked`
    questions, and how many samples of the task it was asked."""
    (a, first, size_a), (b, second, size_b) = sides
    name_a, name_b = catalog.models[a], catalog.models[b]
    answered = (first < ERROR) & (second < ERROR)
    right_a, right_b = first[answered] == CORRECT, second[answered] == CORRECT
    comparison = paired_bootstrap(right_a, right_b, resamples, seed, CONFIDENCE)
    a_only, b_only = discordant(first, second)
    side_a, side_b = _side(name_a, right_a, first), _side(name_b, right_b, second)
    n, left_out = comparison.n, len(asked) - comparison.n
    sentence = comparison.sentence(name_a, name_b)
    if left_out:
        why = "; ".join(
            f"{side.model}: {missing(side.errors, side.pending)}"
            for side in (side_a, side_b)
            if side.errors or side.pending
        )
        sentence = (
            f"On the {n} of {len(asked)} samples both answered, {sentence} Not conclusive for "
            f"all {len(asked)}: {left_out} are left out ({why}); run the same command again "
            "to re-ask them."
        )
    on_intersection = size_a != len(asked) or size_b != len(asked)
    note = None
    if on_intersection:
        note = (
            f"compared on the {len(asked)} samples both were asked ({name_a}: {size_a}, "
            f"{name_b}: {size_b})"
        )
    return PairRow(
        task=task,
        phase=phase,
        a=side_a,
        b=side_b,
        asked=len(asked),
        n=n,
        left_out=left_out,
        point_weight=100.0 / n,
        difference=comparison.difference,
        ci_low=comparison.ci_low,
        ci_high=comparison.ci_high,
        p_value=comparison.p_value,
        a_only=comparison.a_only,
        b_only=comparison.b_only,
        a_only_ids=[catalog.question_id[q] for q in asked[a_only]],
        b_only_ids=[catalog.question_id[q] for q in asked[b_only]],
        significant=comparison.significant,
        sentence=sentence,
        resamples=resamples,
        seed=seed,
        confidence=CONFIDENCE,
        on_intersection=on_intersection,
        note=note,
    )
