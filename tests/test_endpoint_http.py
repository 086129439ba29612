"""The endpoint over real sockets: raw servers on 127.0.0.1 send exactly the bytes a test wants."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trustme

from thinkeval.client import bodies
from thinkeval.client.endpoint import Endpoint, RequestFailed
from thinkeval.client.session import open_session
from thinkeval.sim import SimConfig, serve

Handler = Callable[[bytes, asyncio.StreamWriter], Awaitable[bool]]
BODY = {"model": "m", "messages": [{"role": "user", "content": "2+2?"}], "max_tokens": 8}
COMPLETION = json.dumps(
    {
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "4", "reasoning": "add"},
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
).encode()


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
        except ConnectionError:
            return
        finally:
            writer.close()


@asynccontextmanager
async def raw_server(
    handler: Handler, ssl_context: ssl.SSLContext | None = None
) -> AsyncIterator[RawServer]:
    server = RawServer(handler)
    listener = await asyncio.start_server(server._serve, "127.0.0.1", 0, ssl=ssl_context)
    port = listener.sockets[0].getsockname()[1]
    server.url = f"{'https' if ssl_context else 'http'}://127.0.0.1:{port}/v1"
    async with listener:
        yield server
        # The client has closed its connections by now: let each handler see the end of its own.
        if server.handlers:
            await asyncio.wait(server.handlers, timeout=5)


@asynccontextmanager
async def endpoint_for(
    url: str, api_key: str | None = None, timeout_s: float = 10.0, stream: bool = False
) -> AsyncIterator[Endpoint]:
    async with open_session(8, url.startswith("https:")) as session:
        yield Endpoint(session, url, api_key, timeout_s, stream)


def reply(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def answer_ok(request: bytes, writer: asyncio.StreamWriter) -> bool:
    writer.write(reply(COMPLETION, "Content-Type: application/json"))
    return True


def header(request: bytes, name: str) -> str | None:
    for line in request.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.decode().lower() == name.lower():
            return value.decode().strip()
    return None


async def test_requests_reuse_one_keep_alive_connection() -> None:
    async with raw_server(answer_ok) as server, endpoint_for(server.url) as endpoint:
        for _ in range(3):
            timed = await endpoint.chat(BODY)
            assert (timed.reply.content, timed.reply.reasoning) == ("4", "add")
            assert timed.message == {"role": "assistant", "content": "4", "reasoning": "add"}
    assert server.connections == 1
    first = server.requests[0]
    assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert header(first, "Host") == server.url.split("/")[2]
    assert (header(first, "User-Agent") or "").startswith("thinkeval/")
    assert header(first, "Content-Type") == "application/json"
    assert header(first, "Accept-Encoding") is None  # no compressed replies to inflate
    assert json.loads(first.split(b"\r\n\r\n", 1)[1]) == BODY


async def test_connection_close_is_honoured() -> None:
    async def close_after(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(reply(COMPLETION, "Connection: close"))
        return False

    async with raw_server(close_after) as server, endpoint_for(server.url) as endpoint:
        for _ in range(2):
            assert (await endpoint.chat(BODY)).reply.content == "4"
    assert server.connections == 2


async def test_chunked_reply_and_a_stream_split_across_packets() -> None:
    events = [
        b'data: {"choices":[{"delta":{"reasoning":"ad"}}]}\n\n',
        b'data: {"choices":[{"delta":{"reasoning":"d"}}]}\n\ndata: {"choi',
        b'ces":[{"delta":{"content":"4"},"finish_reason":"stop"}]}\n\n',
        b'data: {"choices":[],"usage":{"completion_tokens":3}}\n\ndata: [DO',
        b"NE]\n\n",
    ]

    async def chunked(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        pieces = events if b'"stream"' in request else [COMPLETION[:20], COMPLETION[20:]]
        for piece in pieces:
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(0.01)  # separate packets: lines must be joined across them
        writer.write(b"0\r\n\r\n")
        return True

    async with raw_server(chunked) as server:
        async with endpoint_for(server.url) as endpoint:
            assert (await endpoint.chat(BODY)).reply.content == "4"
        async with endpoint_for(server.url, stream=True) as endpoint:
            for _ in range(2):
                timed = await endpoint.chat({**BODY, "stream": True})
                assert (timed.reply.content, timed.reply.reasoning) == ("4", "add")
                assert timed.reply.usage.completion_tokens == 3
                assert timed.ttft_s is not None and timed.message is None
    assert server.connections == 2  # one per session: the stream was read to its end, reused


async def test_body_delimited_by_the_end_of_the_connection() -> None:
    async def until_close(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + COMPLETION)
        return False

    async with raw_server(until_close) as server, endpoint_for(server.url) as endpoint:
        assert (await endpoint.chat(BODY)).reply.content == "4"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (b"", "the server closed the connection before the reply ended"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part", "the reply was cut off"),
        (b"<html>not http</html>\r\n\r\n", "malformed HTTP response"),
        (b"reset", "connection"),
    ],
)
async def test_a_broken_reply_is_a_retryable_connection_failure(
    answer: bytes, message: str
) -> None:
    async def broken(request: bytes, writer: asyncio.StreamWriter) -> bool:
        if answer == b"reset":
            writer.transport.abort()  # RST instead of FIN
            return False
        writer.write(answer)
        return False

    async with raw_server(broken) as server, endpoint_for(server.url) as endpoint:
        with pytest.raises(RequestFailed, match=message) as info:
            await endpoint.chat(BODY)
    assert info.value.kind == "connection" and info.value.retryable


async def test_refused_connection_names_the_address() -> None:
    async with raw_server(answer_ok) as server:
        url = server.url
    port = url.split(":")[2].split("/")[0]
    async with endpoint_for(url) as endpoint:
        with pytest.raises(RequestFailed, match=rf"cannot connect to 127\.0\.0\.1:{port}: "):
            await endpoint.chat(BODY)


async def test_a_cancelled_request_never_leaves_its_reply_for_the_next() -> None:
    answers = iter([0.5, 0.5, 0.0])

    async def slow_first(request: bytes, writer: asyncio.StreamWriter) -> bool:
        delay = next(answers)
        await asyncio.sleep(delay)
        writer.write(reply(COMPLETION.replace(b'"4"', b'"late"' if delay else b'"fresh"')))
        return True

    async with raw_server(slow_first) as server:
        async with endpoint_for(server.url, timeout_s=0.1) as endpoint:
            with pytest.raises(RequestFailed, match=r"no complete reply within 0\.1 s") as info:
                await endpoint.chat(BODY)
            assert info.value.kind == "timeout" and info.value.retryable
        async with endpoint_for(server.url) as endpoint:
            task = asyncio.create_task(endpoint.chat(BODY))
            await asyncio.sleep(0.1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert endpoint.outstanding == 0
            assert (await endpoint.chat(BODY)).reply.content == "fresh"
    assert server.connections == 3


async def test_replies_past_the_cap_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bodies, "MAX_REPLY_BYTES", 1000)

    async def big(request: bytes, writer: asyncio.StreamWriter) -> bool:
        if b"declared" in request:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            return True  # the client refuses on the header alone
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        line = b"x" * 300 if b"endless" in request else b"data: " + b"x" * 300 + b"\n\n"
        for _ in range(10):
            writer.write(b"%x\r\n%s\r\n" % (len(line), line))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        return True

    async with raw_server(big) as server:
        async with endpoint_for(server.url) as endpoint:
            with pytest.raises(RequestFailed, match=r"larger than 1000 bytes \(100000 bytes\)"):
                await endpoint.chat({**BODY, "declared": 1})
            with pytest.raises(RequestFailed, match="reply larger than 1000 bytes") as info:
                await endpoint.chat(BODY)
            assert info.value.kind == "too_large" and not info.value.retryable
        async with endpoint_for(server.url, stream=True) as endpoint:
            for variant in ("lines", "endless"):  # an endless line is stopped at the cap too
                with pytest.raises(RequestFailed, match="stream larger than 1000 bytes"):
                    await endpoint.chat({**BODY, "stream": True, variant: 1})


async def test_credentials_in_the_url_become_basic_auth_and_are_never_shown() -> None:
    async with raw_server(answer_ok) as server:
        with_credentials = server.url.replace("http://", "http://user:p%40ss@")
        async with endpoint_for(with_credentials) as endpoint:
            await endpoint.chat(BODY)
            assert "p%40ss" not in endpoint.base_url and "***@" in endpoint.base_url
        async with endpoint_for(with_credentials, api_key="k") as endpoint:
            await endpoint.chat(BODY)
    token = base64.b64encode(b"user:p@ss").decode()
    assert header(server.requests[0], "Authorization") == f"Basic {token}"
    assert b"user" not in server.requests[0].split(b"\r\n")[0]  # not on the request line
    assert header(server.requests[1], "Authorization") == "Bearer k"  # the key wins


async def test_netrc_gives_basic_auth_when_nothing_else_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login ann password s3cret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    async with raw_server(answer_ok) as server:
        async with endpoint_for(server.url) as endpoint:
            await endpoint.chat(BODY)
        async with endpoint_for(server.url, api_key="k") as endpoint:
            await endpoint.chat(BODY)
    assert (
        header(server.requests[0], "Authorization")
        == "Basic " + base64.b64encode(b"ann:s3cret").decode()
    )
    assert header(server.requests[1], "Authorization") == "Bearer k"


async def test_a_header_with_a_line_break_is_refused_before_anything_is_sent() -> None:
    async with raw_server(answer_ok) as server:
        with pytest.raises(ValueError, match="Authorization"):
            async with endpoint_for(server.url, api_key="k\r\nX-Evil: 1"):
                pass
    assert server.connections == 0


async def test_429_is_retryable_after_the_time_the_server_asks() -> None:
    async def limited(request: bytes, writer: asyncio.StreamWriter) -> bool:
        body = b'{"error": {"message": "slow down", "code": 429}}'
        writer.write(reply(body, "Retry-After: 2", status="429 Too Many Requests"))
        return True

    async with raw_server(limited) as server, endpoint_for(server.url) as endpoint:
        with pytest.raises(RequestFailed, match="HTTP 429: slow down") as info:
            await endpoint.chat(BODY)
    failure = info.value
    assert (failure.kind, failure.retryable, failure.retry_after_s) == ("rate_limited", True, 2)


async def test_a_base_url_without_v1_is_named() -> None:
    async def models(request: bytes, writer: asyncio.StreamWriter) -> bool:
        if request.startswith(b"GET /v1/models "):
            writer.write(reply(b'{"object": "list", "data": [{"id": "m"}]}'))
        else:
            writer.write(reply(b'{"detail": "Not Found"}', status="404 Not Found"))
        return True

    async with raw_server(models) as server:
        root = server.url.removesuffix("/v1")
        async with endpoint_for(root) as endpoint:
            with pytest.raises(RequestFailed, match=rf"did you mean {root}/v1\?") as info:
                await endpoint.models()
        assert info.value.kind == "wrong_base_url" and not info.value.retryable
        async with endpoint_for(server.url) as endpoint:
            assert await endpoint.models() == [{"id": "m"}]


@asynccontextmanager
async def tls_server(ca: trustme.CA) -> AsyncIterator[RawServer]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    async with raw_server(answer_ok, context) as server:
        yield server


async def test_https_is_verified_against_ssl_cert_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    async with tls_server(ca) as server:
        monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
        async with endpoint_for(server.url) as endpoint:
            assert (await endpoint.chat(BODY)).reply.content == "4"
        # The system's trust store has never heard of this CA.
        monkeypatch.delenv("SSL_CERT_FILE")
        async with endpoint_for(server.url) as endpoint:
            with pytest.raises(RequestFailed, match=r"not trusted.*SSL_CERT_FILE") as info:
                await endpoint.chat(BODY)
    assert info.value.kind == "tls" and not info.value.retryable


async def test_https_to_a_plain_http_server_says_to_use_http() -> None:
    # aiohttp, like uvicorn, answers a TLS hello with a plain-text 400.
    async with (
        serve(SimConfig()) as url,
        endpoint_for(url.replace("http://", "https://")) as endpoint,
    ):
        with pytest.raises(RequestFailed, match=f"the server speaks plain HTTP; use {url}"):
            await endpoint.models()


async def test_an_error_body_is_read_only_as_far_as_needed() -> None:
    async def huge_error(request: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 500 Oops\r\nContent-Length: 10000000\r\n\r\n")
        with contextlib.suppress(ConnectionError):
            for _ in range(100):
                writer.write(b"<html>" + b"x" * 100_000)
                await writer.drain()
        return False

    async with raw_server(huge_error) as server, endpoint_for(server.url) as endpoint:
        with pytest.raises(RequestFailed, match="HTTP 500 with a non-JSON body") as info:
            await endpoint.chat(BODY)
    assert info.value.retryable
