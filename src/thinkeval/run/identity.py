"""Is the server serving the model the config names? Read `/v1/models` before a model runs."""

from __future__ import annotations

import time
from typing import Any

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.endpoint import RequestFailed
from thinkeval.config import redact_url
from thinkeval.errors import ServerError


def identify(
    cards: list[dict[str, Any]], served_model: str
) -> tuple[dict[str, Any] | None, list[str]]:
    """The card serving `served_model`, and the ids the server offers."""
    ids = [str(card.get("id")) for card in cards]
    for card in cards:
        if card.get("id") == served_model:
            return card, ids
    return None, ids


async def check_identity(
    dispatcher: Dispatcher, served_model: str, allow_mismatch: bool
) -> dict[str, Any]:
    """Read `/v1/models` and make sure the configured model is the one served."""
    try:
        endpoint, cards = await dispatcher.models()
    except RequestFailed as exc:
        urls = ", ".join(redact_url(u) for u in dispatcher.config.base_urls)
        raise ServerError(
            f"cannot reach {urls} for model {dispatcher.config.name!r}: {exc.message}. "
            "Is the server up? (thinkeval check --base-url URL)"
        ) from None
    card, ids = identify(cards, served_model)
    if card is None and not allow_mismatch:
        raise ServerError(
            f"{redact_url(endpoint.base_url)} serves {', '.join(ids) or 'no model'}, not "
            f"{served_model!r} (the usual mistake when models are switched on one port). "
            "Fix base_url/model in the config, or pass --allow-model-mismatch"
        )
    seen = dict(card or {"served": ids})
    seen["checked_at"] = time.time()
    seen["base_url"] = redact_url(endpoint.base_url)
    return seen
