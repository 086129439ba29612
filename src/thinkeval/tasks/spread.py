"""A limit on a task whose subjects fall into categories (C-Eval's 52 subjects in 4): the
samples it takes are spread over every category and, within each, over every subject, rather
than the first N in dataset order (for `ceval_all`, all of them STEM, which made the "average over
categories" an average over one)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from thinkeval.records import Sample


def spread(
    samples: Iterable[Sample], limit: int, categories: Mapping[str, str]
) -> Iterator[Sample]:
    """`limit` of `samples`, taken round-robin over the categories (in the order they first
    appear) and, within a category, round-robin over its subjects (`Sample.subset`, each in data
    order); yielded in data order, the same ones every time.

    >>> rows = [Sample(id=f"{s}/{i}", task="t", messages=(), gold="A", subset=s)
    ...         for s in ("alg", "geo", "law") for i in range(3)]
    >>> [s.id for s in spread(rows, 4, {"alg": "STEM", "geo": "STEM", "law": "Humanities"})]
    ['alg/0', 'geo/0', 'law/0', 'law/1']
    """
    listed = list(samples)
    groups: dict[str | None, dict[str | None, list[int]]] = {}
    for index, sample in enumerate(listed):
        category = categories.get(sample.subset or "")
        groups.setdefault(category, {}).setdefault(sample.subset, []).append(index)
    turns = [
        (turn, rank, index)
        for rank, subjects in enumerate(groups.values())
        for turn, index in enumerate(_round_robin(list(subjects.values())))
    ]
    chosen = sorted(index for _, _, index in sorted(turns)[:limit])
    return (listed[index] for index in chosen)


def _round_robin(lists: Sequence[list[int]]) -> Iterator[int]:
    for turn in range(max((len(items) for items in lists), default=0)):
        for items in lists:
            if turn < len(items):
                yield items[turn]
