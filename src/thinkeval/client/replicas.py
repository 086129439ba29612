"""Which replica of a model answers a request: prompt affinity with bounded loads.

A model served by several replicas (`base_url: [URL, URL, ...]`) is asked many times per
prompt: avg@k repeats, and the adaptive retry. A vLLM or SGLang replica keeps the KV blocks of a
prompt it has seen (automatic prefix caching), so asking every repeat of a prompt on the replica
that saw it first skips its prefill there. `route: affinity` (the default) does that with
rendezvous hashing (Thaler & Ravishankar, "Using name-based mappings to increase hit rates",
IEEE/ACM ToN 1998): each prompt ranks the replicas by a hash of (prompt key, replica URL) and
takes the first, so the mapping is stable and a replica's loss moves only its own prompts.

Hashing alone lets one replica run hot when its prompts happen to be slow. The bound of
Mirrokni, Thorup and Zadimoghaddam ("Consistent Hashing with Bounded Loads", SODA 2018) caps
every replica at `ceil((1 + epsilon) * average load)` requests in flight; a prompt whose first
choice is full goes to the next replica in its own ranking, so it still lands on the same
replica as its other repeats whenever the fleet is not saturated, and no replica ever holds more
than `1 + epsilon` times its share. `route: least_loaded` ignores the prompt (the behaviour before
affinity, kept to compare: bench/affinity_bench.py).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

Route = Literal["affinity", "least_loaded"]
DEFAULT_ROUTE: Route = "affinity"
# Mirrokni et al.'s epsilon: each replica may hold 25% more than its share of the requests in
# flight before a prompt spills to its next choice.
DEFAULT_EPSILON = 0.25


T = TypeVar("T")


def prompt_affinity(task: str, sample_id: str) -> str:
    """The routing key of a prompt: all its repeats and its retry share it."""
    return f"{task}\x1f{sample_id}"


def rendezvous_rank(key: str, urls: Sequence[str]) -> list[int]:
    """The replicas' indexes in `key`'s order of preference (highest random weight first).

    >>> rendezvous_rank("gsm8k/7", ["http://a/v1", "http://b/v1"]) in ([0, 1], [1, 0])
    True
    """

    def weight(url: str) -> int:
        digest = hashlib.blake2b(f"{key}\x1f{url}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big")

    return sorted(range(len(urls)), key=lambda i: weight(urls[i]), reverse=True)


def load_cap(in_flight: int, replicas: int, epsilon: float = DEFAULT_EPSILON) -> int:
    """The most requests one replica may hold once this one is placed (Mirrokni et al.).

    >>> load_cap(0, 4), load_cap(63, 4)
    (1, 20)
    """
    return max(1, math.ceil((1.0 + epsilon) * (in_flight + 1) / replicas))


def choose_replica(
    pool: Sequence[T],
    urls: Sequence[str],
    load: Callable[[T], int],
    key: str | None,
    route: Route,
    epsilon: float = DEFAULT_EPSILON,
) -> T:
    """The replica of `pool` (their `urls`; `load`: requests in flight at one) for a request
    about `key` (None: no prompt to keep together)."""
    if key is None or route == "least_loaded" or len(pool) == 1:
        return min(pool, key=load)
    cap = load_cap(sum(load(e) for e in pool), len(pool), epsilon)
    order = rendezvous_rank(key, urls)
    for index in order:
        if load(pool[index]) < cap:
            return pool[index]
    return pool[order[0]]  # unreachable: the cap leaves room on some replica
