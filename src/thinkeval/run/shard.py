"""Shards: a stable split of the work by sample (and repeat), so processes on several machines
share one run directory without asking anything twice."""

from __future__ import annotations

import zlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (1-based)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            i, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard must look like I/N (e.g. 2/3), got {text!r}") from None
        if not 1 <= i <= n:
            raise ValueError(f"--shard {text}: I must be between 1 and N")
        return cls(i, n)

    @property
    def writer(self) -> str:
        return f"shard-{self.index}-of-{self.count}"

    def owns(self, sample_id: str, repeat: int = 0) -> bool:
        """Whether this shard asks repeat `repeat` of `sample_id`.

        Repeats are spread over the shards too (a 30-question task with 64 repeats would
        otherwise be split 30 ways at most); repeat 0 keys on the id alone, so runs without
        repeats split exactly as before repeats existed.
        """
        key = sample_id if repeat == 0 else f"{sample_id}#{repeat}"
        # crc32 is stable across processes and machines (unlike hash()).
        return zlib.crc32(key.encode()) % self.count == self.index - 1
