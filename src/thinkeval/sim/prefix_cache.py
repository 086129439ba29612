"""The simulated server's prefix cache: a prompt it has prefilled recently costs no prefill again.

vLLM's automatic prefix caching keeps the KV blocks of prompts already computed and reuses them
for a request with the same prefix; blocks are evicted least recently used when memory is
needed. The simulator keeps whole prompts (a repeat of a prompt shares all of it), up to
`prefix_cache_tokens` tokens, least recently used first out. A hit skips the prefill of the
cached tokens, so its time to first token and its slot time shrink by
`prefill_token_s × cached`. `/metrics` reports the queries and hits as vLLM does
(`vllm:prefix_cache_queries_total`, `vllm:prefix_cache_hits_total`, in tokens).
"""

from __future__ import annotations

from collections import OrderedDict


class PrefixCache:
    """Least-recently-used prompts, up to `capacity` tokens (0: no cache)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._held: OrderedDict[str, int] = OrderedDict()
        self._size = 0
        self.queries = 0  # prompt tokens looked up
        self.hits = 0  # of them, found cached

    def lookup(self, key: str, tokens: int) -> int:
        """The tokens of prompt `key` (`tokens` long) found cached; the prompt is cached after."""
        self.queries += tokens
        if self.capacity <= 0:
            return 0
        cached = self._held.get(key)
        if cached is not None:
            self._held.move_to_end(key)
            hit = min(cached, tokens)
            self.hits += hit
            return hit
        if tokens <= self.capacity:
            self._held[key] = tokens
            self._size += tokens
            while self._size > self.capacity:
                _, evicted = self._held.popitem(last=False)
                self._size -= evicted
        return 0
