"""Is the server serving the model the config names? Read `/v1/models` before a model runs."""

from __future__ import annotations

import time
from typing import Any

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.endpoint import RequestFailed
from thinkeval.config import ModelConfig, redact_url
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
        raise unreachable(dispatcher.config.base_urls, dispatcher.config.name, exc) from None
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


# What TLS libraries say when the other side answers a TLS hello in plain HTTP.
_PLAIN_HTTP_SIGNS = (
    "wrong version number",
    "wrong_version_number",
    "record layer failure",
    "packet length too long",
    "http request",
    "unknown protocol",
)


def unreachable(base_urls: list[str], name: str | None, failure: RequestFailed) -> ServerError:
    """One line for a failed `/v1/models` read: what failed and the likely fix.

    >>> failed = RequestFailed("http_404", "HTTP 404 with a non-JSON body", False, 404)
    >>> print(unreachable(["http://h:8000"], "m", failed))
    http://h:8000 answered HTTP 404 for /models: did you mean http://h:8000/v1? (model 'm')
    """
    url = base_urls[0] if len(base_urls) == 1 else None
    text = failure.message.lower()
    model = f" (model {name!r})" if name else ""
    if url and url.startswith("https://") and any(sign in text for sign in _PLAIN_HTTP_SIGNS):
        return ServerError(
            f"{redact_url(url)}: the server speaks plain HTTP; use "
            f"{redact_url('http://' + url.removeprefix('https://'))}{model}"
        )
    if url and failure.http_status == 404 and not url.rstrip("/").endswith("/v1"):
        return ServerError(
            f"{redact_url(url)} answered HTTP 404 for /models: did you mean "
            f"{redact_url(url.rstrip('/') + '/v1')}?{model}"
        )
    urls = ", ".join(redact_url(u) for u in base_urls)
    return ServerError(
        f"cannot reach {urls}{' for model ' + repr(name) if name else ''}: {failure.message}. "
        "Is the server up? (thinkeval check --base-url URL)"
    )


def model_refused(
    endpoint: str, served_model: str, error: str | None, unlisted: list[str] | None
) -> ServerError:
    """The error ending a run whose server answered that the model does not exist.

    `unlisted` is what /v1/models listed when it did not list the model at the start (the run
    went on with --allow-model-mismatch); None when it did list it, so it changed since.
    """
    url = redact_url(endpoint)
    if unlisted is not None:
        return ServerError(
            f"{url} refuses requests for {served_model!r} ({error}); it serves "
            f"{', '.join(unlisted) or 'no model'}. --allow-model-mismatch lets a run start when "
            "/v1/models does not list the id, but the server must still accept it: set the "
            "model id to one it serves. Nothing partial was recorded"
        )
    return ServerError(
        f"{url} no longer serves {served_model!r} ({error}), although /v1/models listed it "
        "when the run started: the server was redeployed mid-run. Nothing partial was "
        "recorded: check the server and run the same command again to resume"
    )


async def served_ids(base_url: str, api_key_env: str | None) -> list[str]:
    """The model ids `base_url`'s `/v1/models` lists (a run from flags picks the only one)."""
    probe = ModelConfig(name="probe", base_url=base_url, api_key_env=api_key_env, timeout_s=30)
    async with Dispatcher(probe) as dispatcher:
        try:
            _, cards = await dispatcher.models()
        except RequestFailed as exc:
            raise unreachable([base_url], None, exc) from None
    return [str(card.get("id")) for card in cards if card.get("id") is not None]
