"""Reading a reply's body with a cap: a broken server cannot fill the memory.

An error body is read only as far as any error message goes; a reply up to `MAX_REPLY_BYTES`
(counted as read, so a Content-Length that lies or a body that inflates is stopped too); a
stream line by line, as the bytes arrive.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp

from thinkeval.client.replies import RequestFailed

# A reply larger than this is a broken server, not an answer worth keeping.
MAX_REPLY_BYTES = 64 * 1024 * 1024
# Of an error reply, only this much is read: enough for any error message.
MAX_ERROR_BYTES = 64 * 1024


async def read_head(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    """At most the first `limit` bytes of the body (an error's: the rest is not worth reading)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_any():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


async def read_capped(resp: aiohttp.ClientResponse) -> bytes:
    """The whole body, or `too_large` past MAX_REPLY_BYTES (counted as read, so a body whose
    Content-Length lies, or that inflates when decompressed, is stopped too)."""
    length = resp.content_length
    if length is not None and length > MAX_REPLY_BYTES:
        raise RequestFailed(
            kind="too_large",
            message=f"reply larger than {MAX_REPLY_BYTES} bytes ({length} bytes) refused",
            retryable=False,
        )
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_any():
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise RequestFailed(
                kind="too_large",
                message=f"reply larger than {MAX_REPLY_BYTES} bytes",
                retryable=False,
            )
        chunks.append(chunk)
    return b"".join(chunks)


async def lines(content: aiohttp.StreamReader, cap: int | None = None) -> AsyncIterator[bytes]:
    """The body line by line (without the line break), as the bytes arrive.

    Memory is bounded by `cap` (default `MAX_REPLY_BYTES`) over the whole body: a server that
    never sends a line break, or sends too much, is stopped there.
    """
    cap = MAX_REPLY_BYTES if cap is None else cap
    pending: list[bytes] = []
    size = 0
    async for chunk in content.iter_any():
        size += len(chunk)
        if size > cap:
            raise RequestFailed(
                kind="too_large", message=f"stream larger than {cap} bytes", retryable=False
            )
        if b"\n" not in chunk:
            pending.append(chunk)
            continue
        *lines, rest = chunk.split(b"\n")
        if pending:
            lines[0] = b"".join(pending) + lines[0]
            pending.clear()
        for line in lines:
            yield line
        if rest:
            pending.append(rest)
    if pending:
        yield b"".join(pending)
