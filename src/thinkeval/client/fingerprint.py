"""What one replica is: the fingerprint compared across a model's `base_url` list.

A fleet of replicas behind one model must be the same deployment, or the run's accuracy is an
average over different systems. Each replica is read once at the start: its `/v1/models` card
(id, root, max_model_len, owned_by, and a quantization where the card states one), its engine
version (where its server profile says it tells one: `version_path`), and how its reasoning
parser answers one short greedy probe (which field carries the reasoning, vllm-api.md §2):
a replica started without `--reasoning-parser`, or of another vLLM era, shows there.
`differences` lists every field on which the replicas disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from thinkeval.client.profiles import PROFILES, card_window
from thinkeval.client.replies import RequestFailed

if TYPE_CHECKING:
    import aiohttp

    from thinkeval.client.endpoint import Endpoint

ReasoningField = Literal[
    "reasoning", "reasoning_content", "reasoning+reasoning_content", "content <think>", "none"
]
ContentField = Literal["null", "empty", "text", "absent"]
PROBE_PROMPT = "Question: What is 17 + 25?\nLet's think step by step\nAnswer:"
PROBE_TOKENS = 24  # enough to see where the reasoning goes; a reply cut inside its thinking
# The fields compared across replicas, in the order differences are listed.
COMPARED = (
    "model",
    "root",
    "max_model_len",
    "owned_by",
    "quantization",
    "engine_version",
    "reasoning",
)


class Fingerprint(msgspec.Struct, kw_only=True):
    """One replica as it describes itself; None where it says nothing."""

    base_url: str
    model: str | None = None
    root: str | None = None
    max_model_len: int | None = None
    owned_by: str | None = None
    quantization: str | None = None
    engine_version: str | None = None
    reasoning: ReasoningField | None = None  # where the probe's reasoning arrived
    error: str | None = None  # the replica could not be read
    unreachable: bool = False  # nothing answered (down, not different): the run avoids it


def reasoning_field(message: dict[str, Any]) -> ReasoningField:
    """Where a raw reply message carries its reasoning (§7.3 of vllm-api.md: it moved per era)."""
    names = [n for n in ("reasoning", "reasoning_content") if _text(message.get(n))]
    if len(names) == 2:
        return "reasoning+reasoning_content"
    if names:
        return "reasoning" if names[0] == "reasoning" else "reasoning_content"
    content = message.get("content")
    if isinstance(content, str) and ("<think>" in content or "</think>" in content):
        # No reasoning parser, or vLLM 0.9-0.16 cut inside the think block.
        return "content <think>"
    return "none"


def content_field(message: dict[str, Any]) -> ContentField:
    """How a raw reply message carries `content`: null, "" (SGLang, OpenAI), text, or absent."""
    if "content" not in message:
        return "absent"
    content = message["content"]
    if content is None:
        return "null"
    return "text" if isinstance(content, str) and content else "empty"


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _quantization(card: dict[str, Any]) -> str | None:
    """A quantization the card names (no vLLM card does; some gateways and SGLang builds do)."""
    for key in ("quantization", "quant", "dtype"):
        value = card.get(key)
        if isinstance(value, str) and value:
            return value
    meta = card.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("ftype"), str):
        return str(meta["ftype"])
    return None


async def engine_version(session: aiohttp.ClientSession, endpoint: Endpoint) -> str | None:
    """The server's own version where its profile says it tells one (`version_path`), then
    where the other flavours' servers do (a llama.cpp server behind `api: vllm` still tells
    its build at `/props`)."""
    import aiohttp

    origin = endpoint.root.removesuffix("/v1")
    timeout = aiohttp.ClientTimeout(total=10)
    readers: dict[str, Callable[[Any], str | None]] = {}
    for profile in (endpoint.profile, *PROFILES.values()):
        if profile.version_path is not None:
            readers.setdefault(profile.version_path, profile.read_version)
    for path, read in readers.items():
        try:
            async with session.get(
                origin + path, headers=endpoint.headers, proxy=endpoint.proxy, timeout=timeout
            ) as reply:
                if reply.status != 200:
                    continue
                found = read(await reply.json(content_type=None))
        except (aiohttp.ClientError, TimeoutError, ValueError):
            continue
        if found:
            return found
    return None


async def fingerprint(
    session: aiohttp.ClientSession, endpoint: Endpoint, model: str, probe: bool = True
) -> Fingerprint:
    """Read one replica: its card for `model`, its version, and (`probe`) one short request."""
    found = Fingerprint(base_url=endpoint.base_url)
    try:
        cards = await endpoint.models()
    except RequestFailed as exc:
        found.error = f"/models: {exc.message}"
        found.unreachable = exc.http_status is None
        return found
    card = next((c for c in cards if c.get("id") == model), cards[0] if len(cards) == 1 else None)
    if card is None:
        ids = ", ".join(str(c.get("id")) for c in cards) or "no model"
        found.error = f"serves {ids}, not {model!r}"
        return found
    found.model = str(card.get("id"))
    found.root = str(card["root"]) if card.get("root") is not None else None
    found.max_model_len = card_window(card)
    owner = card.get("owned_by")
    found.owned_by = owner if isinstance(owner, str) else None
    found.quantization = _quantization(card)
    found.engine_version = await engine_version(session, endpoint)
    if probe:
        profile = endpoint.profile
        generation = profile.probe_generation()
        messages = [{"role": "user", "content": PROBE_PROMPT}]
        body = profile.request(found.model, messages, PROBE_TOKENS, generation, False)
        try:
            timed = await endpoint.chat(body)
        except RequestFailed as exc:
            found.error = f"probe: {exc.message}"
        else:
            found.reasoning = reasoning_field(timed.message or {})
    return found


def differences(prints: Sequence[Fingerprint]) -> list[str]:
    """One line per compared field on which the replicas disagree, and per replica that answered
    wrongly (one that did not answer at all is down, not different: not listed).

    >>> a = Fingerprint(base_url="http://a/v1", model="m", max_model_len=40960)
    >>> b = Fingerprint(base_url="http://b/v1", model="m", max_model_len=32768)
    >>> differences([a, b])
    ['max_model_len: 40960 at http://a/v1; 32768 at http://b/v1']
    """
    lines = [f"{p.base_url}: {p.error}" for p in prints if p.error and not p.unreachable]
    read = [p for p in prints if p.error is None]
    for name in COMPARED:
        values: dict[str, list[str]] = {}
        for p in read:
            values.setdefault(str(getattr(p, name)), []).append(p.base_url)
        if len(values) > 1:
            shown = "; ".join(f"{value} at {', '.join(urls)}" for value, urls in values.items())
            lines.append(f"{name}: {shown}")
    return lines
