"""Server profiles: how each server flavour is asked, and what it answers differently.

A model's config names its flavour (`api:`, default vllm); `thinkeval check` detects it. Each
flavour is one module of this package that defines `PROFILE`, an instance of a `ServerProfile`
subclass (`base.py`); this registry finds them, so a new flavour is one module and its test.
The profile builds every chat request (`request`, `set_budget`) and reads every reply, error,
load count, window and version (`parse`, `stream`, `failure`, `read_load`, `read_window`,
`read_version`), and states the facts the rest of thinkeval asks instead of a flavour's name.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Annotated, Any, TypeAlias

import msgspec

from thinkeval.client.profiles.base import ServerProfile

DEFAULT_API = "vllm"


def _discover() -> dict[str, ServerProfile]:
    """Every flavour module's `PROFILE`, the default first, then by name."""
    found: dict[str, ServerProfile] = {}
    for module in pkgutil.iter_modules(__path__):
        profile = getattr(importlib.import_module(f"{__name__}.{module.name}"), "PROFILE", None)
        if isinstance(profile, ServerProfile):
            found[profile.name] = profile
    return {name: found[name] for name in sorted(found, key=lambda n: (n != DEFAULT_API, n))}


PROFILES: dict[str, ServerProfile] = _discover()
# An `api:` value: the name of a profile. The config checks it against `api_names()` (a new
# module is enough to add one); its JSON Schema lists them.
Api: TypeAlias = Annotated[str, msgspec.Meta(extra_json_schema={"enum": sorted(PROFILES)})]


def api_names() -> tuple[Api, ...]:
    """The accepted `api:` values, the default first."""
    return tuple(PROFILES)


def get_profile(api: Api) -> ServerProfile:
    """The profile for an `api:` value (one the config check accepted)."""
    return PROFILES[api]


def profile_named(api: str) -> ServerProfile | None:
    """The profile called `api`, None for a name no flavour has."""
    return PROFILES.get(api)


def profile_refusing_max_tokens() -> ServerProfile | None:
    """The flavour whose server refuses `max_tokens` (a `wrong_api` refusal): what
    `thinkeval check` speaks instead."""
    return next((p for p in PROFILES.values() if p.refuses_max_tokens), None)


def detect_api(card: Mapping[str, Any]) -> tuple[Api | None, str]:
    """The flavour a `/v1/models` card reveals, and the evidence; None when it says nothing.

    A card owned as a profile's `card_owners` say is that flavour's, unless a flavour whose
    cards state no window sends one (vLLM's say `owned_by: vllm` and carry `max_model_len`;
    OpenAI's say `openai`, `system` or `openai-internal` and carry no context length, §5, §7);
    else a field only one flavour sends (`card_hint`).
    """
    owner = card.get("owned_by")
    shown = f"owned_by: {owner}" if isinstance(owner, str) else "no owned_by"
    for profile in PROFILES.values():
        if owner in profile.card_owners and (profile.states_window or "max_model_len" not in card):
            return profile.name, shown
    for profile in PROFILES.values():
        hint = profile.card_hint(card)
        if hint is not None:
            return profile.name, f"{shown}, but {hint}"
    return None, shown


def stated_window(card: Mapping[str, Any]) -> tuple[int, str] | None:
    """The context window a `/v1/models` card states, in any flavour's field, and which."""
    return next((w for p in PROFILES.values() if (w := p.stated_window(card)) is not None), None)


def card_window(card: Mapping[str, Any]) -> int | None:
    """The context window a `/v1/models` card states: vLLM's and SGLang's `max_model_len`,
    llama.cpp's `meta.n_ctx` (OpenAI's cards state none)."""
    window = stated_window(card)
    return None if window is None else window[0]


__all__ = [
    "DEFAULT_API",
    "PROFILES",
    "Api",
    "ServerProfile",
    "api_names",
    "card_window",
    "detect_api",
    "get_profile",
    "profile_named",
    "profile_refusing_max_tokens",
    "stated_window",
]
