"""The HTTP/1.1 client against raw servers on 127.0.0.1 that send exactly the bytes a test wants."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
import trustme

from thinkeval.client.http import HttpClient, HttpError

Handler = Callable[[bytes, asyncio.StreamWriter], Awaitable[bool]]


class RawServer:
    """Reads each request (head and Content-Length body) and lets `handler` answer with raw bytes.

    `handler` returns False to stop serving the connection. Records every request and counts
    connections, so tests can see what went over the wire and whether a connection was reused.
    """

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[bytes] = []
        self.connections = 0
        self.url = ""
        self.handlers: set[asyncio.Task[None]] = set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self.handlers.add(task)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.lower() == b"content-length":
                        length = int(value)
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                if not await self.handler(request, writer):
                    return
                await writer.drain()
        finally:
            writer.close()


@asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[RawServer]:
    server = RawServer(handler)
    listener = await asyncio.start_server(server._serve, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    server.url = f"http://127.0.0.1:{port}"
    async with listener:
        yield server
        # The client has closed its connections by now: let each handler see the end of its own.
        if server.handlers:
            await asyncio.wait(server.handlers, timeout=5)


def reply(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def answer_ok(request: bytes, writer: asyncio.StreamWriter) -> bool:
    writer.write(reply(b'{"ok": true}', "Content-Type: application/json"))
    return True


async def test_requests_reuse_one_keep_alive_connection() -> None:
    async with raw_server(answer_ok) as server, HttpClient(user_agent="ua/1") as client:
        for _ in range(3):
            async with client.request(
                "POST", f"{server.url}/v1/chat", {"Content-Type": "application/json"}, b"{}"
            ) as resp:
                assert resp.status == 200
                assert resp.headers["content-type"] == "application/json"
                assert await resp.read() == b'{"ok": true}'
    assert server.connections == 1
    first = server.requests[0]
    assert first.startswith(b"POST /v1/chat HTTP/1.1\r\n")
    assert b"\r\nHost: 127.0.0.1:" in first and b"\r\nUser-Agent: ua/1\r\n" in first
    assert b"\r\nContent-Length: 2\r\n" in first and first.endswith(b"\r\n\r\n{}")


async def test_connection_close_is_honoured() -> None:
    async def close_after(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(reply(b"x", "Connection: close"))
        return False

    async with raw_server(close_after) as server, HttpClient() as client:
        for _ in range(2):
            async with client.request("GET", f"{server.url}/") as resp:
                assert await resp.read() == b"x"
    assert server.connections == 2


async def test_chunked_body_read_whole_and_as_lines() -> None:
    events = [b"data: {\"a\": 1}\n\n", b"data: [DO", b"NE]\n\n"]

    async def chunked(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for event in events:
            writer.write(b"%x\r\n%s\r\n" % (len(event), event))
            await writer.drain()
            await asyncio.sleep(0.01)  # separate packets: lines must be joined across chunks
        writer.write(b"0\r\n\r\n")
        return True

    async with raw_server(chunked) as server, HttpClient() as client:
        async with client.request("GET", server.url) as resp:
            assert await resp.read() == b"".join(events)
        async with client.request("GET", server.url) as resp:
            lines = [line async for line in resp.lines()]
    assert lines == [b'data: {"a": 1}\n', b"\n", b"data: [DONE]\n", b"\n"]
    assert server.connections == 1


async def test_body_delimited_by_the_end_of_the_connection() -> None:
    async def until_close(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it")
        return False

    async with (
        raw_server(until_close) as server,
        HttpClient() as client,
        client.request("GET", server.url) as resp,
    ):
        assert await resp.read() == b"all of it"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (b"", "closed the connection before the reply ended"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part", "before the reply ended"),
        (b"<html>not http</html>\r\n\r\n", "malformed HTTP response"),
    ],
)
async def test_a_broken_reply_is_an_http_error(answer: bytes, message: str) -> None:
    async def broken(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer)
        return False

    async with raw_server(broken) as server, HttpClient() as client:
        with pytest.raises(HttpError, match=message):
            async with client.request("GET", server.url) as resp:
                await resp.read()


async def test_refused_connection_names_the_address() -> None:
    async with raw_server(answer_ok) as server:
        url = server.url
    async with HttpClient() as client:
        with pytest.raises(HttpError, match=r"cannot connect to 127\.0\.0\.1:\d+"):
            async with client.request("GET", url):
                pass


async def test_a_cancelled_request_never_leaves_its_reply_for_the_next() -> None:
    answers = iter([b"late", b"fresh"])

    async def slow_first(request: bytes, writer: asyncio.StreamWriter) -> bool:
        body = next(answers)
        if body == b"late":
            await asyncio.sleep(0.3)
        writer.write(reply(body))
        return True

    async with raw_server(slow_first) as server, HttpClient() as client:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05), client.request("GET", server.url) as resp:
                await resp.read()
        async with client.request("GET", server.url) as resp:
            assert await resp.read() == b"fresh"
    assert server.connections == 2


async def test_read_limit_returns_the_head_and_drops_the_connection() -> None:
    async def big(request: bytes, writer: asyncio.StreamWriter) -> bool:
        whole = reply(b"x" * 100_000)
        writer.write(whole[:1000])
        await writer.drain()
        await asyncio.sleep(0.2)  # the client has what it asked for long before the rest
        writer.write(whole[1000:])
        return True

    async with raw_server(big) as server, HttpClient() as client:
        async with client.request("GET", server.url) as resp:
            assert resp.content_length == 100_000
            assert await resp.read(10) == b"x" * 10
        async with client.request("GET", server.url) as resp:
            assert len(await resp.read()) == 100_000
    assert server.connections == 2


async def test_credentials_in_the_url_become_basic_auth_unless_a_header_is_given() -> None:
    async with raw_server(answer_ok) as server, HttpClient() as client:
        with_credentials = server.url.replace("http://", "http://user:p%40ss@")
        async with client.request("GET", f"{with_credentials}/v1/models") as resp:
            await resp.read()
        headers = {"Authorization": "Bearer k"}
        async with client.request("GET", f"{with_credentials}/v1/models", headers) as resp:
            await resp.read()
    token = base64.b64encode(b"user:p@ss").decode()
    assert f"Authorization: Basic {token}\r\n".encode() in server.requests[0]
    assert b"user" not in server.requests[0].split(b"\r\n")[0]  # not on the request line
    assert b"Authorization: Bearer k\r\n" in server.requests[1]
    assert b"Basic" not in server.requests[1]


async def test_a_header_with_a_line_break_is_refused_before_anything_is_sent() -> None:
    async with raw_server(answer_ok) as server, HttpClient() as client:
        with pytest.raises(ValueError, match="Authorization"):
            async with client.request("GET", server.url, {"Authorization": "k\r\nX-Evil: 1"}):
                pass
    assert server.requests == []


async def test_error_status_and_headers_are_returned_not_raised() -> None:
    async def limited(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(reply(b"slow down", "Retry-After: 2", status="429 Too Many Requests"))
        return True

    async with (
        raw_server(limited) as server,
        HttpClient() as client,
        client.request("GET", server.url) as resp,
    ):
        assert (resp.status, resp.headers["retry-after"]) == (429, "2")
        assert await resp.read() == b"slow down"


@asynccontextmanager
async def tls_server(ca: trustme.CA) -> AsyncIterator[str]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(reply(b"over tls"))
            await writer.drain()
        writer.close()

    listener = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    async with listener:
        yield f"https://localhost:{listener.sockets[0].getsockname()[1]}/v1/models"


async def test_https_verifies_the_server_certificate() -> None:
    ca = trustme.CA()
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    async with tls_server(ca) as url:
        async with (
            HttpClient(ssl_context=client_context) as client,
            client.request("GET", url) as resp,
        ):
            assert await resp.read() == b"over tls"
        # The system's trust store has never heard of this CA.
        async with HttpClient() as client:
            with pytest.raises(HttpError, match="certificate verify failed"):
                async with client.request("GET", url):
                    pass


async def test_a_line_without_end_comes_in_pieces_of_bounded_size() -> None:
    async def endless(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n")
        for _ in range(10):
            writer.write(b"x" * 500)
            await writer.drain()
            await asyncio.sleep(0.01)
        return True

    async with (
        raw_server(endless) as server,
        HttpClient() as client,
        client.request("GET", server.url) as resp,
    ):
        pieces = [line async for line in resp.lines(max_line=1000)]
    assert b"".join(pieces) == b"x" * 5000
    # Never held whole: a piece is at most max_line plus what one read brought.
    assert len(pieces) > 1 and max(len(piece) for piece in pieces) < 5000


async def test_a_connection_idle_too_long_is_not_reused() -> None:
    async with raw_server(answer_ok) as server, HttpClient(idle_s=0.1) as client:
        for pause in (0.0, 0.3, 0.0):  # the second request finds its connection stale
            await asyncio.sleep(pause)
            async with client.request("GET", server.url) as resp:
                await resp.read()
    assert server.connections == 2
