"""The context window a server gives each request, as `thinkeval check` shows it.

vLLM and SGLang state it on the model card (`max_model_len`); llama.cpp states `meta.n_ctx` on
the card and describes its slots at `/props` (`default_generation_settings.n_ctx` is one
slot's window, `total_slots` how many share the server); OpenAI's cards state none.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import orjson

from thinkeval.client.profiles import Api, card_window

PROPS_TIMEOUT_S = 10.0


async def llamacpp_props(
    session: aiohttp.ClientSession, base_url: str, headers: dict[str, str]
) -> dict[str, Any] | None:
    """llama.cpp's `/props`, or None when the server has none (or it is unreadable)."""
    origin = base_url.rstrip("/").removesuffix("/v1")
    timeout = aiohttp.ClientTimeout(total=PROPS_TIMEOUT_S)
    try:
        async with session.get(f"{origin}/props", headers=headers, timeout=timeout) as resp:
            if resp.status != 200:
                return None
            body = orjson.loads(await resp.read())
    except (TimeoutError, aiohttp.ClientError, orjson.JSONDecodeError):
        return None
    return body if isinstance(body, dict) else None


def window_of(
    api: Api | None, card: dict[str, Any], props: dict[str, Any] | None
) -> tuple[int | None, str]:
    """The per-request window and where it was read, e.g. `(2048, "/props: 4 slots of 2048")`."""
    stated = card_window(card)
    if props is not None:
        settings = props.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        slots = props.get("total_slots")
        if isinstance(n_ctx, int) and n_ctx > 0:
            shown = f"{slots} slots of {n_ctx}" if isinstance(slots, int) else f"n_ctx {n_ctx}"
            return n_ctx, f"/props: {shown} tokens"
    if stated is None:
        return None, "not stated by the server" if api == "openai" else "not stated"
    field = "max_model_len" if "max_model_len" in card else "meta.n_ctx"
    return stated, f"model card {field}"
