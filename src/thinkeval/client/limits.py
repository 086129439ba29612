"""In-flight caps per server, shared by every model that sends to it.

Several models can live on one server: LoRA adapters of one vLLM, or one server listed under two
names. Each model has its own `concurrency`, but the server has one batch: without a shared cap,
two models of 64 each would keep 128 requests at a server tuned for 64. A cap is a fair (FIFO)
semaphore per base URL that every request to that URL holds while it is at the server; waiting
for it is waiting in the client, not in the server's queue, so the server sees at most its cap.

The caps come from the config's `endpoints` list; a base URL that several models share and the
config does not list gets the largest `concurrency` of those models, the most any of them alone
would send.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from thinkeval.urls import endpoint_key

if TYPE_CHECKING:  # the config is above the client: types only
    from thinkeval.config import ModelConfig


def endpoint_caps(
    models: Iterable[ModelConfig], configured: Mapping[str, int] | None = None
) -> dict[str, int]:
    """The in-flight cap of every base URL that needs one.

    A URL listed in `configured` (the config's `endpoints`) gets its cap; a URL shared by
    several models gets the largest `concurrency` among them. A URL only one model uses needs no
    cap of its own: that model's concurrency already bounds it.

    >>> from thinkeval.config import ModelConfig
    >>> a = ModelConfig(name="a", base_url="http://h:8000/v1", concurrency=64)
    >>> b = ModelConfig(name="b", base_url="http://h:8000/v1/", concurrency=32)
    >>> endpoint_caps([a, b])
    {'http://h:8000/v1': 64}
    """
    users: dict[str, list[int]] = {}
    for model in models:
        for url in {endpoint_key(u) for u in model.base_urls}:
            users.setdefault(url, []).append(model.concurrency)
    caps = {url: max(c) for url, c in users.items() if len(c) > 1}
    for url, cap in (configured or {}).items():
        key = endpoint_key(url)
        if key in users:
            caps[key] = cap
    return caps


class EndpointLimits:
    """The shared in-flight caps of one run: one FIFO semaphore per capped base URL.

    A dispatcher looks its endpoints' semaphores up once and holds one around each request.
    """

    def __init__(self, caps: Mapping[str, int] | None = None) -> None:
        self.caps = {endpoint_key(url): cap for url, cap in (caps or {}).items()}
        self._slots = {url: asyncio.Semaphore(cap) for url, cap in self.caps.items()}

    def semaphore(self, base_url: str) -> asyncio.Semaphore | None:
        """The semaphore capping `base_url`, or None when it has no cap."""
        return self._slots.get(endpoint_key(base_url))
