"""An exact loop at the end of a reply, found the way vLLM's repetition detector finds it.

vLLM (0.20+, `repetition_detection` in the request, `vllm/v1/core/sched/utils.py`
`check_sequence_repetition`) ends a request with `finish_reason: "repetition"` when the last
`L` output tokens equal each of the `min_count - 1` blocks of `L` tokens before them, for some
`L` from `min_pattern_size` to `max_pattern_size`, trying the smallest `L` first. The scheduler
checks after each step; a deployment usually checks every `every` tokens once `start` tokens
are out. `LoopParams()` is the setting the issue tracker and the docs quote: from 512 tokens
on, every 16 tokens, a block of 4-128 tokens three times in a row (so within 384 <= 512 tokens
of the check point). With `every=1, start=0` the detector is vLLM's exactly.

It runs on token ids when a reply has them, otherwise on `pieces` (a tokenizer-free
approximation, see `diagnosis.pieces`). The work is vectorised with numpy: a cheap probe of
the last few tokens before each check point against the same tokens one and two blocks back
leaves few candidates to compare in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

# Tokens before a check point compared one and two blocks back before a full comparison.
_PROBES = 4


@dataclass(frozen=True)
class LoopParams:
    """The detector's settings, in tokens (or pieces, or characters: the same numbers)."""

    min_block: int = 4
    max_block: int = 128
    repeats: int = 3
    start: int = 512
    every: int = 16

    def describe(self) -> str:
        return (
            f"block {self.min_block}-{self.max_block} x{self.repeats}, "
            f"from {self.start} every {self.every}"
        )


class Loop(NamedTuple):
    """Where the detector fired first: the check point `at` (pieces so far), the block's
    length, how many times in a row it is repeated up to `at`, and where that run starts."""

    at: int
    block: int
    repeats: int
    start: int


def find_loop(
    ids: list[int], params: LoopParams = LoopParams(), at_end: bool = False
) -> Loop | None:
    """The first check point at which the detector fires on `ids`, or None. `at_end` checks
    the last position too: a reply vLLM ended with `repetition` was checked exactly there,
    and its tokens need not fall on our check points when counted as pieces.

    >>> find_loop([7, 1, 2, 3, 4] * 3, LoopParams(start=0, every=1))
    Loop(at=15, block=5, repeats=3, start=0)
    >>> find_loop(list(range(600)), LoopParams()) is None
    True
    """
    import numpy as np  # only the commands that diagnose replies load numpy

    n = len(ids)
    first_point = max(params.start, params.min_block * params.repeats, 1)
    if n < first_point:
        return None
    step = max(params.every, 1)
    # Check points are multiples of `every` from `start` on, as the scheduler's counter runs.
    begin = -(-first_point // step) * step
    points = np.arange(begin, n + 1, step, dtype=np.int64)
    if at_end and (points.size == 0 or points[-1] != n):
        points = np.append(points, np.int64(n))
    if points.size == 0:
        return None
    tokens = np.asarray(ids, dtype=np.int64)
    # A cheap necessary test first: the last few tokens before each check point equal the
    # tokens one and two blocks back, each probe narrowing the candidates of the one before;
    # only the (point, block) pairs passing them all are compared in full. Check points are
    # sorted, so the usable ones for a block are a slice.
    last = tokens[points - 1]
    best_point = n + 1
    best_block = 0
    for block in range(max(params.min_block, 1), params.max_block + 1):
        span = block * params.repeats
        if span > n:
            break
        low = int(np.searchsorted(points, span))
        high = int(np.searchsorted(points, best_point))
        if low >= high:
            continue
        here = points[low:high]
        here = here[(tokens[here - 1 - block] == last[low:high])]
        for depth in range(min(block, _PROBES)):
            for back in range(1, params.repeats):
                if here.size:
                    here = here[tokens[here - 1 - depth - back * block] == tokens[here - 1 - depth]]
        for point in here.tolist():
            if _repeated(ids, point, block, params.repeats):
                best_point, best_block = point, block
                break
    if best_block == 0:
        return None
    repeats = _repeats(ids, best_point, best_block)
    return Loop(best_point, best_block, repeats, best_point - repeats * best_block)


def _repeated(ids: list[int], point: int, block: int, repeats: int) -> bool:
    """Whether the `repeats` blocks of `block` tokens before `point` are equal."""
    tail = ids[point - block : point]
    return all(ids[point - (k + 1) * block : point - k * block] == tail for k in range(1, repeats))


def _repeats(ids: list[int], at: int, block: int) -> int:
    """How many times the block ending at `at` occurs in a row, counting back."""
    count = 1
    tail = ids[at - block : at]
    while at - (count + 1) * block >= 0:
        if ids[at - (count + 1) * block : at - count * block] != tail:
            break
        count += 1
    return count
