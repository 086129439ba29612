"""Which samples the self-contained HTML file embeds: the telling ones first, within a budget.

A report of any size must stay a file one can mail and open, so the page embeds at most
`EMBED_BUDGET_BYTES` of sample data, chosen in this order:

1. the discordant samples of every pair of models (one right, the other wrong; for a task asked
   k times per question, one solved it in more of its repeats than the other), fixed and
   adaptive, taking from every pair's lists in turn;
2. the samples some model did not get right at the fixed budget (wrong, no answer, empty,
   unfinished, an error, or nothing yet; in some repeat), taking from every model's and
   verdict's lists in turn;
3. of the samples every model got right (in every repeat), up to `REST_PER_TASK` per task.

Within each list samples come in the order of a hash of their ids (a fixed pseudo-random order),
so what is embedded is a spread, not the first few hundred. Filling stops at the first sample
that does not fit. Every embedded sample carries all models' replies (every repeat), so pairs,
side-by-side views and the per-question view are whole. The page says how many of each kind it
holds; `thinkeval view` serves them all.
"""

from __future__ import annotations

import hashlib
import itertools

import msgspec
import numpy as np

from thinkeval.report._model_samples import Browser, EmbedPart, QuestionView, ReplyView, SampleIndex
from thinkeval.report._samples import Catalog, Limits
from thinkeval.results.columns import CORRECT, ERROR, STATUS_CODES

EMBED_BUDGET_BYTES = 7_000_000
EMBED_LIMITS = Limits(reasoning=(1000, 500), content=(3000, 1000), prompt=(3000, 1000))
REST_PER_TASK = 300
# What one row adds to the index columns, roughly: fourteen small numbers.
ROW_INDEX_BYTES = 72
ANSWERED = tuple(range(ERROR))  # the codes of a verdict (not an error, not pending)


def _hash_order(catalog: Catalog, questions: np.ndarray) -> np.ndarray:
    """`questions` in the order of a hash of their task and id: stable, and spread out."""
    keys = [
        hashlib.blake2b(
            f"{catalog.tasks[int(catalog.question_task[q])]}\0{catalog.question_id[q]}".encode(),
            digest_size=8,
        ).digest()
        for q in questions
    ]
    return questions[np.argsort(np.array(keys, dtype="S8"), kind="stable")]


def _interleave(groups: list[np.ndarray]) -> list[int]:
    """One from each group in turn, then the second of each, and so on."""
    merged = itertools.chain.from_iterable(itertools.zip_longest(*groups))
    return [int(q) for q in merged if q is not None]


def _discordant_groups(catalog: Catalog) -> list[np.ndarray]:
    groups = []
    asked = catalog.first_row >= 0
    for column in ("row_fixed", "row_final"):  # the fixed and the adaptive comparison
        solved = catalog.count(column, (CORRECT,))
        # Every repeat answered: with k = 1, the sample has a verdict.
        answered = asked & (catalog.count(column, ANSWERED) == catalog.question_repeats)
        for a, b in itertools.combinations(range(len(catalog.models)), 2):
            both = answered[a] & answered[b]
            a_more, b_more = both & (solved[a] > solved[b]), both & (solved[b] > solved[a])
            for t in range(len(catalog.tasks)):
                in_task = catalog.question_task == t
                for side in (a_more, b_more):
                    groups.append(_hash_order(catalog, np.nonzero(in_task & side)[0]))
    return groups


def _not_correct_groups(catalog: Catalog) -> list[np.ndarray]:
    codes = [code for code in range(len(STATUS_CODES)) if code != CORRECT]
    # Per code, (models, questions): the model's fixed verdict is that code in some repeat.
    some = {code: catalog.count("row_fixed", (code,)) > 0 for code in codes}
    groups = []
    for m in range(len(catalog.models)):
        for t in range(len(catalog.tasks)):
            in_task = catalog.question_task == t
            for code in codes:
                found = np.nonzero(some[code][m] & in_task)[0]
                if len(found):
                    groups.append(_hash_order(catalog, found))
    return groups


def _all_correct(catalog: Catalog) -> np.ndarray:
    """Questions every model that was asked got right at the fixed budget, in every repeat."""
    solved = catalog.count("row_fixed", (CORRECT,))
    every: np.ndarray = ((solved == catalog.question_repeats) | (catalog.first_row < 0)).all(axis=0)
    return every


def _rest_groups(catalog: Catalog) -> list[np.ndarray]:
    all_correct = _all_correct(catalog)
    return [
        _hash_order(catalog, np.nonzero(all_correct & (catalog.question_task == t))[0])[
            :REST_PER_TASK
        ]
        for t in range(len(catalog.tasks))
    ]


def _size(encoded: bytes) -> int:
    # In the page, <, > and & are written as \u003c etc.: five bytes more each.
    return len(encoded) + 5 * (encoded.count(b"<") + encoded.count(b">") + encoded.count(b"&"))


def embed(catalog: Catalog, budget: int = EMBED_BUDGET_BYTES) -> Browser:
    """Choose the samples the HTML file embeds and read their texts (see the module docstring)."""
    limits = EMBED_LIMITS
    encoder = msgspec.json.Encoder()
    kinds = [
        ("discordant between two models", _discordant_groups(catalog)),
        ("not correct at the fixed budget for some model", _not_correct_groups(catalog)),
        ("correct for every model at the fixed budget", _rest_groups(catalog)),
    ]
    chosen: dict[int, tuple[QuestionView, list[list[ReplyView]]]] = {}
    exemplars: dict[str, list[dict[str, str]]] = {}
    used, full = 0, False
    for _, groups in kinds:
        for question in _interleave(groups):
            if full:
                break
            if question in chosen:
                continue
            view, shots = catalog.question_view(question, limits)
            rows = catalog.rows_of_question(question)
            replies = [catalog.reply_views(int(r), limits) for r in rows]
            size = _size(encoder.encode(view)) + _size(encoder.encode(replies))
            size += len(rows) * ROW_INDEX_BYTES + len(catalog.question_id[question]) + 32
            if shots is not None and shots[0] not in exemplars:
                size += _size(encoder.encode(shots[1]))
            if used + size > budget:
                full = True
                break
            used += size
            chosen[question] = (view, replies)
            if shots is not None:
                exemplars.setdefault(shots[0], shots[1])
    parts = []
    for kind, groups in kinds:
        members = set(itertools.chain.from_iterable(g.tolist() for g in groups))
        if groups is kinds[-1][1]:  # all of them, not only those within the cap
            members = set(np.nonzero(_all_correct(catalog))[0].tolist())
        parts.append(
            EmbedPart(kind=kind, total=len(members), embedded=len(members & chosen.keys()))
        )
    questions = sorted(chosen)
    rows = np.sort(
        np.concatenate([catalog.rows_of_question(q) for q in questions] or [np.zeros(0, int)])
    )
    fields = catalog.index(rows)
    index = SampleIndex(
        **{k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in fields.items()}
    )
    return Browser(
        index=index,
        questions=[chosen[q][0] for q in questions],
        rows=[replies for q in questions for replies in chosen[q][1]],
        exemplars=exemplars,
        parts=parts,
        total_questions=len(catalog.question_id),
        total_rows=len(catalog),
        budget_bytes=budget,
        limits=limits.as_dict(),
    )
