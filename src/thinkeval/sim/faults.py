"""A simulated server that can hang and be restarted under the same port, for watchdog tests.

`Restartable.hang()` does what llama-server does on SIGTERM with requests in flight, and what a
killed pod behind a load balancer or a proxy that drops a connection silently look like from
the client: it stops listening, and the connections it holds stay open without another byte.
`restart()` then starts a fresh server (a new start time in `/metrics`) on the same port, as a
supervisor or an orchestrator would.

Example::

    async with Restartable(SimConfig(profile="sglang", port=0)) as server:
        ...                      # server.base_url
        await server.hang()
        await server.restart()
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiohttp import web

from thinkeval.sim.app import SIMULATOR_KEY, build_app, make_runner
from thinkeval.sim.behaviour import AnswerEntry
from thinkeval.sim.config import SimConfig
from thinkeval.sim.server import Simulator


class Restartable:
    """A simulator on a fixed port that can hang (connections held open) and restart."""

    def __init__(
        self, config: SimConfig, answer_key: Mapping[str, AnswerEntry] | None = None
    ) -> None:
        self.config = config
        self.answer_key = answer_key
        self.port = config.port
        self._live: tuple[web.AppRunner, web.TCPSite] | None = None
        self._hung: list[web.AppRunner] = []  # stopped listening, connections still open

    @property
    def base_url(self) -> str:
        return f"http://{self.config.host}:{self.port}/v1"

    @property
    def simulator(self) -> Simulator:
        """The simulator serving now."""
        assert self._live is not None
        return self._live[0].app[SIMULATOR_KEY]

    async def start(self) -> None:
        runner = make_runner(build_app(self.config, self.answer_key))
        await runner.setup()
        site = web.TCPSite(runner, self.config.host, self.port, reuse_address=True)
        await site.start()
        self.port = runner.addresses[0][1]
        self._live = (runner, site)

    async def hang(self) -> None:
        """Stop listening; hold every connection, in flight or idle, without a byte more."""
        assert self._live is not None
        runner, site = self._live
        runner.app[SIMULATOR_KEY].hung.set()
        server = site._server  # the listening socket only: open connections stay
        if server is not None:
            server.close()
        self._hung.append(runner)
        self._live = None

    async def restart(self) -> None:
        """A fresh server on the same port (after `hang`, or in place of the live one)."""
        if self._live is not None:
            await self.hang()
        await self.start()

    async def close(self) -> None:
        for runner in self._hung:
            await runner.cleanup()
        if self._live is not None:
            await self._live[0].cleanup()

    async def __aenter__(self) -> Restartable:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
