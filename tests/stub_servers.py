"""Small real HTTP servers for the tests that need a server the simulator does not play: one
that answers every chat with a fixed error, or one that accepts and never answers (hung).

`ThreadedApp(app)` serves an aiohttp application on 127.0.0.1 from a thread of its own, so a
test can drive the synchronous CLI (`main([...])`) against it.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from aiohttp import web


@dataclass
class Seen:
    """What a stub server has been asked."""

    requests: int = 0


SEEN = web.AppKey("seen", Seen)


class ThreadedApp:
    """An aiohttp application on a free port of 127.0.0.1, in a thread; a context manager."""

    def __init__(self, app: web.Application) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        self.port = 0

    async def _start(self) -> None:
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = self.runner.addresses[0][1]

    @property
    def seen(self) -> Seen:
        return self.app[SEEN]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ThreadedApp:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def models_app(model: str = "m", **card: Any) -> web.Application:
    """An application whose `/v1/models` lists `model` (with the card's extra fields)."""

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": model, **card}]})

    app = web.Application()
    app[SEEN] = Seen()
    app.router.add_get("/v1/models", models)
    return app


def refusing_app(
    status: int, body: dict[str, Any], model: str = "m", headers: dict[str, str] | None = None
) -> web.Application:
    """Every chat request answered with `status`, the error `body` and `headers`; counts the
    requests."""
    app = models_app(model, owned_by="vllm", max_model_len=4096)

    async def chat(request: web.Request) -> web.Response:
        request.app[SEEN].requests += 1
        await request.read()
        return web.json_response(body, status=status, headers=headers)

    app.router.add_post("/v1/chat/completions", chat)
    return app


def hung_app(model: str = "m") -> web.Application:
    """A server that lists its model, then accepts every chat request and never answers."""
    app = models_app(model, owned_by="vllm", max_model_len=4096)

    async def chat(request: web.Request) -> web.Response:
        request.app[SEEN].requests += 1
        await asyncio.Event().wait()  # never set: the reply never comes
        raise AssertionError("unreachable")

    app.router.add_post("/v1/chat/completions", chat)
    return app
