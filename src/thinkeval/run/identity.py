"""Is the server serving the model the config names? Read `/v1/models` before a model runs."""

from __future__ import annotations

import time
from typing import Any

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.endpoint import RequestFailed
from thinkeval.config import ModelConfig
from thinkeval.config.models import read_api_key
from thinkeval.errors import ServerError
from thinkeval.urls import redact_url


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


# Failures whose message already says what to use instead (client/endpoint.py).
_SELF_EXPLAINED = ("wrong_base_url", "tls")


def unreachable(base_urls: list[str], name: str | None, failure: RequestFailed) -> ServerError:
    """One line for a failed `/v1/models` read: what failed and, unless the failure says what to
    use instead (a URL without /v1, https to a plain-HTTP server), whether the server is up.

    >>> failed = RequestFailed(kind="connection", message="cannot connect to h:8000: refused",
    ...                        retryable=True)
    >>> print(unreachable(["http://h:8000/v1"], "m", failed))  # doctest: +NORMALIZE_WHITESPACE
    cannot reach http://h:8000/v1 for model 'm': cannot connect to h:8000: refused.
    Is the server up? (thinkeval check --base-url URL)
    """
    model = f" for model {name!r}" if name else ""
    if failure.http_status in (401, 403):
        # The server is up and refused the key: say how to give one (as `check` does).
        urls = ", ".join(redact_url(u) for u in base_urls)
        return ServerError(
            f"{urls}/models answered {failure.message}{model}: pass the key with "
            "--api-key-env VAR (or api_key_env in the config), or check the key it holds"
        )
    if failure.kind in _SELF_EXPLAINED:
        return ServerError(f"{failure.message}{' (model ' + repr(name) + ')' if name else ''}")
    urls = ", ".join(redact_url(u) for u in base_urls)
    return ServerError(
        f"cannot reach {urls}{model}: {failure.message}. "
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


def no_tool_parser(endpoint: str, error: str | None) -> ServerError:
    """The error ending a model's run whose server parses no tool calls (a tool-calling task)."""
    return ServerError(
        f"{redact_url(endpoint)} parses no tool calls ({error}): start vLLM with "
        "--enable-auto-tool-choice --tool-call-parser PARSER (hermes for Qwen3), SGLang with "
        "--tool-call-parser, llama.cpp's llama-server with --jinja. Nothing partial was recorded"
    )


async def served_ids(base_url: str, api_key_env: str | None) -> list[str]:
    """The model ids `base_url`'s `/v1/models` lists (a run from flags picks the only one)."""
    if api_key_env:
        # Named as the user gave it: the model config below is internal ("probe").
        read_api_key(api_key_env, f"environment variable {api_key_env} (--api-key-env)")
    probe = ModelConfig(name="probe", base_url=base_url, api_key_env=api_key_env, timeout_s=30)
    async with Dispatcher(probe) as dispatcher:
        try:
            _, cards = await dispatcher.models()
        except RequestFailed as exc:
            raise unreachable([base_url], None, exc) from None
    return [str(card.get("id")) for card in cards if card.get("id") is not None]
