"""The simulator's word about repeats that cannot differ: a prompt asked again at the same
budget without a seed gets the same reply from the simulator (a real server samples anew), so
the repeats of a task are copies of one reply. Said once per server, on stderr."""

from __future__ import annotations

import sys


class UnseededRepeats:
    """Watches (prompt, max_tokens) pairs asked without a seed; warns on the first repeat."""

    def __init__(self) -> None:
        self._asked: set[tuple[str, int]] = set()
        self.warned = False

    def saw(self, key: str, limit: int, seed: int | None) -> None:
        if seed is not None or self.warned:
            return
        if (key, limit) not in self._asked:
            self._asked.add((key, limit))
            return
        self.warned = True
        print(
            "thinkeval sim: a prompt was asked again at the same max_tokens without a seed; "
            "the simulator answers it identically, so repeats are copies of one reply. Send a "
            "seed (generation: {seed: 0}; repeat r sends seed + r) to vary them",
            file=sys.stderr,
            flush=True,
        )
