"""The budgets `thinkeval check` probes at, how long it waits on each, and saying so while it
waits.

A hung server (one that accepts and never answers) must not keep `check` silent: each probe
has a limit that fits its budget, `PROBE_BASE_S + max_tokens / PROBE_RATE` (30 s for the first
probe of 256 tokens, 348 s for 8192: a server decoding at least 25 tokens per second answers
in time), unless `--timeout-s` sets one, and every `NOTE_S` while it waits one line says what
it waits on, at which URL, for how long so far, and when it gives up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from thinkeval.client.replies import RequestFailed

T = TypeVar("T")
Say = Callable[[str], None]

FIRST_RUNG = 256
RUNG_FACTOR = 4
PROBE_BASE_S = 20.0
PROBE_RATE = 25.0  # tokens per second: slower than any server worth evaluating on
NOTE_S = 10.0


def budget_ladder(largest: int) -> list[int]:
    """The probe budgets: 256, then ×4, capped at (and always ending with) `largest`.

    >>> budget_ladder(8192)
    [256, 1024, 4096, 8192]
    """
    rungs = []
    rung = FIRST_RUNG
    while rung < largest:
        rungs.append(rung)
        rung *= RUNG_FACTOR
    return [*rungs, largest]


def probe_timeout_s(max_tokens: int, given: float | None) -> float:
    """The limit of one probe of `max_tokens`: `--timeout-s` when given, else one that fits."""
    return given if given is not None else PROBE_BASE_S + max_tokens / PROBE_RATE


async def waited(work: Awaitable[T], what: str, limit_s: float, say: Say | None) -> T:
    """`work`'s result, or a `RequestFailed` of kind `timeout` after `limit_s`; says every
    `NOTE_S` what it waits on."""
    started = time.monotonic()

    async def notes() -> None:
        while True:
            await asyncio.sleep(NOTE_S)
            if say is not None:
                waited_s = time.monotonic() - started
                say(f"waiting on {what} for {waited_s:.0f} s (gives up after {limit_s:g} s)")

    noting = asyncio.ensure_future(notes())
    try:
        return await asyncio.wait_for(work, limit_s)
    except TimeoutError:
        message = f"no reply within {limit_s:g} s"
        raise RequestFailed(kind="timeout", message=message, retryable=True) from None
    finally:
        noting.cancel()
