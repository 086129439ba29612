"""HTTP/1.1 with keep-alive for the endpoints: asyncio transports and httptools' llhttp parser.

Why not aiohttp or httpx: a run is a few thousand small JSON requests to one or two hosts, so
what matters is the cost per request and the time before the first one. aiohttp costs a quarter
of a second to import (and builds two TLS contexts at import) before a run can send anything;
httpx's connection pool costs several milliseconds of CPU per request at 64 in flight (both
measured on the benchmark machine; docs/architecture.md). This module keeps only what the
endpoints use: a pool of keep-alive connections per origin, bodies sent with Content-Length,
bodies read whole (capped) or line by line for server-sent events. Parsing, chunked encoding
and keep-alive rules are llhttp's; TLS is the standard library's, built on the first https
request.
"""

from __future__ import annotations

import asyncio
import base64
import ssl
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import httptools

# A connection idle this long is closed instead of reused: uvicorn (vLLM, SGLang) closes idle
# connections after 5 s, and a request sent as it does so is lost to a race.
IDLE_S = 4.0


class HttpError(Exception):
    """No well-formed HTTP response: refused, reset, closed early, or not HTTP at all."""


@dataclass(frozen=True)
class _Target:
    """What a URL means to the pool: where to connect and what to put on the request line."""

    origin: tuple[str, str, int]  # scheme, host, port
    host_header: str
    path: str
    basic_auth: str | None  # from user:password in the URL


def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else host
    default = port == (443 if parts.scheme == "https" else 80)
    auth = None
    if parts.username is not None or parts.password is not None:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        auth = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target((parts.scheme, host, port), shown if default else f"{shown}:{port}", path, auth)


class Response:
    """The status and headers of a reply, and its body as it arrives.

    Header names are lower-case. The body is read with `read` (whole, capped) or `lines`.
    """

    def __init__(self, connection: _Connection, status: int, headers: dict[str, str]) -> None:
        self._connection = connection
        self.status = status
        self.headers = headers

    @property
    def content_length(self) -> int | None:
        value = self.headers.get("content-length")
        return int(value) if value is not None and value.isdigit() else None

    async def read(self, limit: int = -1) -> bytes:
        """The body, or its first `limit` bytes when it is longer (`limit` < 0: no cap)."""
        connection = self._connection
        while not connection.complete and (limit < 0 or connection.buffered < limit):
            await connection.wait()
        data = b"".join(connection.body)
        connection.body.clear()
        connection.buffered = 0
        return data if limit < 0 else data[:limit]

    async def lines(self, max_line: int = 1 << 20) -> AsyncIterator[bytes]:
        """The body line by line (each with its b"\\n"), as server-sent events arrive.

        A line longer than `max_line` is yielded in pieces, so a server that never sends a
        line break cannot fill memory; the caller's own size cap then stops it.
        """
        connection = self._connection
        pending = b""
        while True:
            if connection.body:
                pending += b"".join(connection.body)
                connection.body.clear()
                connection.buffered = 0
                *complete, pending = pending.split(b"\n")
                for line in complete:
                    yield line + b"\n"
                if len(pending) > max_line:
                    yield pending
                    pending = b""
            elif connection.complete:
                if pending:
                    yield pending
                return
            else:
                await connection.wait()


class _Connection(asyncio.Protocol):
    """One keep-alive connection; llhttp calls the `on_*` methods as bytes arrive."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.lost = False
        self.error: HttpError | None = None
        self.headers_done = False
        self.complete = False
        self.keep_alive = False  # llhttp's verdict on the last complete response
        self.idle_since = 0.0  # loop time it went back to the pool
        self.body: list[bytes] = []
        self.buffered = 0
        self._header_list: list[tuple[bytes, bytes]] = []
        self._waiter: asyncio.Future[None] | None = None

    # asyncio.Protocol -------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(HttpError(f"malformed HTTP response: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if not self.complete:
            if self.headers_done and self._reads_until_close():
                self.complete = True  # a body delimited by the end of the connection
            else:
                why = f": {exc}" if exc else ""
                self._fail(HttpError(f"server closed the connection before the reply ended{why}"))
        self._wake()

    # llhttp callbacks -------------------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_list.append((name, value))

    def on_headers_complete(self) -> None:
        self.headers_done = True
        self._wake()

    def on_body(self, body: bytes) -> None:
        self.body.append(body)
        self.buffered += len(body)
        self._wake()

    def on_message_complete(self) -> None:
        # Asked here: once the message is complete the parser resets for the next one.
        self.keep_alive = self.parser.should_keep_alive()
        self.complete = True
        self._wake()

    # used by the pool and Response --------------------------------------------------------------

    def start(self, request: bytes) -> None:
        """Send one request; the previous response must be complete."""
        self.headers_done = self.complete = self.keep_alive = False
        self.body.clear()
        self.buffered = 0
        self._header_list.clear()
        assert self.transport is not None
        self.transport.write(request)

    async def wait(self) -> None:
        """Until the parser or the transport has news."""
        if self.error is not None:
            raise self.error
        if self.lost and not self.complete:
            raise HttpError("server closed the connection before the reply ended")
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None
        if self.error is not None:
            raise self.error

    def status_and_headers(self) -> tuple[int, dict[str, str]]:
        headers: dict[str, str] = {}
        for name, value in self._header_list:
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        return self.parser.get_status_code(), headers

    @property
    def reusable(self) -> bool:
        return self.complete and self.keep_alive and not self.lost

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _reads_until_close(self) -> bool:
        names = {name.lower() for name, _ in self._header_list}
        return b"content-length" not in names and b"transfer-encoding" not in names

    def _fail(self, error: HttpError) -> None:
        if self.error is None:
            self.error = error
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


class HttpClient:
    """Keep-alive HTTP/1.1 connections per origin, shared by every request of a run.

    >>> async with HttpClient() as client:
    ...     async with client.request("GET", "http://127.0.0.1:8000/v1/models") as resp:
    ...         body = await resp.read()

    Timeouts are the caller's (`asyncio.timeout` around the request): a request cancelled half
    way closes its connection, so the next one never reads a stale reply.
    """

    def __init__(
        self,
        user_agent: str = "thinkeval",
        ssl_context: ssl.SSLContext | None = None,
        idle_s: float = IDLE_S,
    ) -> None:
        self._user_agent = user_agent
        self._idle_s = idle_s
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._busy: set[_Connection] = set()
        self._targets: dict[str, _Target] = {}
        # None: the system's trusted certificates (SSL_CERT_FILE / SSL_CERT_DIR are honoured).
        self._ssl = ssl_context

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every connection, idle or in use."""
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()
        for connection in self._busy:
            connection.close()
        self._busy.clear()

    @asynccontextmanager
    async def request(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str] | None = None,
        body: bytes = b"",
    ) -> AsyncIterator[Response]:
        """Send one request and yield its response once the headers are in.

        The connection goes back to the pool when the body was read to its end, and is closed
        otherwise. Raises `HttpError` when no well-formed response comes back.
        """
        target = self._targets.get(url)
        if target is None:
            target = self._targets[url] = _target(url)
        message = self._encode(method, target, headers or {}, body)
        connection = await self._connect(target.origin)
        self._busy.add(connection)
        reusable = False
        try:
            connection.start(message)
            while not connection.headers_done:
                await connection.wait()
            status, response_headers = connection.status_and_headers()
            yield Response(connection, status, response_headers)
            reusable = connection.reusable
        finally:
            self._busy.discard(connection)
            if reusable:
                connection.idle_since = asyncio.get_running_loop().time()
                self._idle.setdefault(target.origin, []).append(connection)
            else:
                connection.close()

    def _encode(
        self, method: str, target: _Target, headers: Mapping[str, str], body: bytes
    ) -> bytes:
        lines = [
            f"{method} {target.path} HTTP/1.1",
            f"Host: {target.host_header}",
            f"User-Agent: {self._user_agent}",
            f"Content-Length: {len(body)}",
        ]
        given = {name.lower() for name in headers}
        if target.basic_auth and "authorization" not in given:
            lines.append(f"Authorization: {target.basic_auth}")
        for name, value in headers.items():
            if "\n" in value or "\r" in value or "\n" in name or "\r" in name:
                # It would smuggle a header, or a second request, onto the connection.
                raise ValueError(f"request header {name!r} contains a line break")
            lines.append(f"{name}: {value}")
        return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + body

    async def _connect(self, origin: tuple[str, str, int]) -> _Connection:
        idle = self._idle.get(origin)
        fresh_since = asyncio.get_running_loop().time() - self._idle_s
        while idle:
            connection = idle.pop()
            transport = connection.transport
            if connection.lost or transport is None or transport.is_closing():
                continue
            if connection.idle_since < fresh_since:
                connection.close()
                continue
            return connection
        scheme, host, port = origin
        ssl_context = self._ssl_context() if scheme == "https" else None
        loop = asyncio.get_running_loop()
        try:
            _, connection = await loop.create_connection(
                _Connection, host, port, ssl=ssl_context, server_hostname=ssl_context and host
            )
        except OSError as exc:
            raise HttpError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
        return connection

    def _ssl_context(self) -> ssl.SSLContext:
        # Built on the first https request: loading the system's certificates takes tens of
        # milliseconds that a run against http://127.0.0.1 should not pay.
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl
