"""What a broken proxy or a crashed worker sends: HTTP 200 whose body is cut in half."""

from __future__ import annotations

import orjson
from aiohttp import web

from thinkeval.sim.behaviour import Generation
from thinkeval.sim.profiles import Profile
from thinkeval.sim.requests import ChatRequest


def malformed_reply(
    profile: Profile, rid: str, created: int, chat: ChatRequest, gen: Generation, chunk: int
) -> web.Response:
    """The reply to `chat`, cut: half its JSON, or its first SSE event and half the second."""
    if chat.stream:
        head = profile.stream_head(rid, created, chat.model)
        events = profile.stream(head, gen, chat.prompt_tokens, False, chunk)
        cut = events[1][1][: len(events[1][1]) // 2]
        return web.Response(
            status=200, body=events[0][1] + cut, headers={"Content-Type": "text/event-stream"}
        )
    full = orjson.dumps(profile.completion(rid, created, chat.model, gen, chat.prompt_tokens))
    return web.Response(status=200, body=full[: len(full) // 2], content_type="application/json")
