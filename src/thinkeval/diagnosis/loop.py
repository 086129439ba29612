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
approximation, see `diagnosis.pieces`). The work is vectorised with numpy over every (check
point, block length) pair at once: a cheap probe of the last few tokens before each check
point against the same tokens one and two blocks back leaves few candidates to compare in
full.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

# Tokens before a check point compared one and two blocks back before a full comparison.
_PROBES = 4
# Check points probed together: a (points x blocks) array of 1024 x 125 indices is 1 MiB.
_POINTS_AT_ONCE = 1024


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
    blocks = np.arange(max(params.min_block, 1), params.max_block + 1, dtype=np.int64)
    blocks = blocks[blocks * params.repeats <= n]
    if points.size == 0 or blocks.size == 0:
        return None
    tokens = np.asarray(ids, dtype=np.int64)
    # The detector fires first at the earliest check point, with the smallest block there.
    # Every (point, block) pair is probed at once, a slice of check points at a time (the
    # first slice with a loop ends the search): the token before the point against the one a
    # block back, then the few (`_PROBES`) before it one and two blocks back; only the pairs
    # passing every probe, in (point, block) order, are compared in full.
    first, last = int(blocks[0]), int(blocks[-1])
    spans = blocks * params.repeats
    # Row i: the tokens a block of `last` down to `first` back from token i + last (a view).
    windows = np.lib.stride_tricks.sliding_window_view(tokens, last - first + 1)[:, ::-1]
    for low in range(0, points.size, _POINTS_AT_ONCE):
        here = points[low : low + _POINTS_AT_ONCE]
        if here[0] > last * params.repeats:  # every block fits before every point here
            hit = windows[here - 1 - last] == tokens[here - 1][:, None]
        else:
            back = np.maximum(here[:, None] - 1 - blocks[None, :], 0)
            hit = (tokens[back] == tokens[here - 1][:, None]) & (here[:, None] >= spans)
        at, block = np.nonzero(hit)  # row-major: by point, then by block
        at, block = here[at], blocks[block]
        for depth in range(_PROBES):
            for times in range(1, params.repeats):
                if at.size:
                    keep = tokens[np.maximum(at - 1 - depth - times * block, 0)]
                    keep = (keep == tokens[at - 1 - depth]) | (block <= depth)
                    at, block = at[keep], block[keep]
        for point, size in zip(at.tolist(), block.tolist(), strict=True):
            if _repeated(ids, point, size, params.repeats):
                repeats = _repeats(ids, point, size)
                return Loop(point, size, repeats, point - repeats * size)
    return None


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
