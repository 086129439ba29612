"""A request's generation settings, typed: the sampling fields OpenAI-compatible servers take,
checked when a config or task file is read, and the server-specific rest passed on unchanged.

A `generation:` mapping (a model's, a task entry's, a task file's, a task's recommended
sampling, `--gen`) is read into one `GenerationSettings`. The fields below are checked for type
and range as vLLM checks them (`../shared/design/vllm-api.md` §request); `null` leaves a field
to the server's default, as vLLM reads it. Any other key is a setting of one server (vLLM's
`min_tokens`, SGLang's `separate_reasoning`, ...): it is kept in `extra` and sent as written,
so a config that worked before still sends the same body. An unknown key one typo away from a
known one (`temprature`) is still sent, and `typos` names it for a warning.

The body a request carries keeps the keys in the order they were written (`as_dict`): the
layers a request merges (`overridden_by`) add their new keys after the ones below them, as a Python
`{**below, **above}` would, so bodies, journals and run records stay what they were.

>>> s = GenerationSettings.read({"top_p": 0.95, "min_tokens": 8, "temperature": 0})
>>> s.temperature, s.extra, s.as_dict()
(0, {'min_tokens': 8}, {'top_p': 0.95, 'min_tokens': 8, 'temperature': 0})
>>> s.overridden_by(GenerationSettings.read({"temperature": 0.6, "seed": 1})).as_dict()
{'top_p': 0.95, 'min_tokens': 8, 'temperature': 0.6, 'seed': 1}
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Mapping
from typing import Annotated, Any, Final

import msgspec
from msgspec import UNSET, Meta, UnsetType

from thinkeval.errors import ConfigError

# Request fields the protocol owns: a config may not override them.
RESERVED_GENERATION_KEYS = frozenset(
    {"model", "messages", "max_tokens", "max_completion_tokens", "stream", "stream_options", "n"}
)

# Numbers as written: an int stays an int on the wire (`0`, not `0.0`); None sends `null`.
_AtLeastZero = Annotated[float, Meta(ge=0)] | Annotated[int, Meta(ge=0)] | None | UnsetType
_Positive = Annotated[float, Meta(gt=0)] | Annotated[int, Meta(gt=0)] | None | UnsetType
_Share = Annotated[float, Meta(ge=0, le=1)] | Annotated[int, Meta(ge=0, le=1)] | None | UnsetType
_TopP = Annotated[float, Meta(gt=0, le=1)] | Annotated[int, Meta(gt=0, le=1)] | None | UnsetType
_Penalty = (
    Annotated[float, Meta(ge=-2, le=2)] | Annotated[int, Meta(ge=-2, le=2)] | None | UnsetType
)
_INT64 = Meta(ge=-(2**63), le=2**63 - 1)  # vLLM range-checks the seed as an int64


class GenerationSettings(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Sampling settings for one request; UNSET: not written (nothing sent), None: `null` sent
    (the server's default, for vLLM the model's `generation_config.json`). Two are equal when
    they send the same body: the same keys, in the same order, with the same values."""

    temperature: _AtLeastZero = UNSET  # 0 is greedy
    top_p: _TopP = UNSET
    top_k: Annotated[int, Meta(ge=-1)] | UnsetType | None = UNSET  # 0 or -1: off (vLLM)
    min_p: _Share = UNSET
    seed: Annotated[int, _INT64] | UnsetType | None = UNSET  # repeat r sends seed + r (`seeded`)
    presence_penalty: _Penalty = UNSET
    frequency_penalty: _Penalty = UNSET
    repetition_penalty: _Positive = UNSET  # 1 is neutral
    # Handed to the server's chat template: how Qwen3's `enable_thinking` is toggled.
    chat_template_kwargs: dict[str, Any] | UnsetType | None = UNSET
    # Every other key, passed on as written (server-specific settings).
    extra: dict[str, Any] = {}
    # Every key set, in the order written: the body keeps it. Settings built in code may leave
    # it out: their keys then follow in field order, then `extra`'s (`__post_init__`).
    order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        given = [name for name in _FIELDS if getattr(self, name) is not UNSET]
        given += self.extra
        if len(given) != len(self.order) or set(given) != set(self.order):
            written = [key for key in self.order if key in given]
            order = tuple(dict.fromkeys([*written, *given]))
            msgspec.structs.force_setattr(self, "order", order)

    @classmethod
    def read(cls, mapping: Mapping[str, Any], where: str = "generation") -> GenerationSettings:
        """`mapping` as settings; a `ConfigError` lists every problem as `where.key: ...`."""
        problems = [f"{path}: {message}" for path, message in generation_problems(mapping, where)]
        if problems:
            raise ConfigError("\n".join(problems))
        return _build(mapping, typed=_TAKES.keys() & mapping.keys())

    @classmethod
    def recorded(cls, mapping: Mapping[str, Any]) -> GenerationSettings:
        """What a run recorded (`config.json`), never refused: a value an older thinkeval let
        through that the checks now refuse is kept in `extra`, sent and shown as recorded."""
        typed = {key for key in _TAKES.keys() & mapping.keys() if _fits(key, mapping[key])}
        return _build(mapping, typed)

    def as_dict(self) -> dict[str, Any]:
        """The settings as the request body starts: every key written, in order. The one
        place settings become wire (and record) fields."""
        extra = self.extra
        return {key: extra[key] if key in extra else getattr(self, key) for key in self.order}

    def overridden_by(self, above: GenerationSettings) -> GenerationSettings:
        """These settings with `above`'s over them, key by key (a nested mapping such as
        `chat_template_kwargs` is replaced whole): `{**self, **above}` as a dict would merge."""
        if not above.order:
            return self
        typed = [key for key in above.order if key not in above.extra]
        # A key typed below and kept in `extra` above (or the other way) is sent as above says.
        changed = {key: getattr(above, key) for key in typed}
        changed.update((key, UNSET) for key in above.extra if key in _TAKES)
        below = {key: value for key, value in self.extra.items() if key not in changed}
        return msgspec.structs.replace(
            self,
            **changed,
            extra={**below, **above.extra},
            order=tuple(dict.fromkeys([*self.order, *above.order])),
        )

    def seeded(self, repeat: int) -> GenerationSettings:
        """The settings of repeat `repeat`: `seed + repeat` where a seed is set, so repeats
        sample different replies and a retry regenerates its own."""
        if not isinstance(self.seed, int) or repeat == 0:
            return self
        return msgspec.structs.replace(self, seed=self.seed + repeat)

    def __bool__(self) -> bool:
        return bool(self.order)


_FIELDS: Final = tuple(
    name for name in GenerationSettings.__struct_fields__ if name not in ("extra", "order")
)
# What each field takes, in the words a refusal uses.
_TAKES: Final = {
    "temperature": "a number >= 0",
    "top_p": "a number > 0 and <= 1",
    "top_k": "an integer >= -1 (0 or -1: off)",
    "min_p": "a number from 0 to 1",
    "seed": "an integer (64-bit)",
    "presence_penalty": "a number from -2 to 2",
    "frequency_penalty": "a number from -2 to 2",
    "repetition_penalty": "a number > 0",
    "chat_template_kwargs": "a mapping of names to values",
}


def generation_problems(
    mapping: Mapping[str, Any], where: str = "generation"
) -> Iterator[tuple[str, str]]:
    """Every reason the `generation` mapping at key path `where` cannot be sent, as (key path,
    message): `where` for the whole mapping, `where.KEY` for one field's value."""
    reserved = sorted(RESERVED_GENERATION_KEYS & mapping.keys())
    if reserved:
        yield (
            where,
            f"{', '.join(reserved)} cannot be set in generation: thinkeval sets them "
            "(max_tokens comes from budgets)",
        )
    if mapping.get("stop"):
        yield (
            where,
            "stop sequences are not sent: they cut thinking models off inside their "
            "reasoning; remove 'stop'",
        )
    for key, value in mapping.items():
        if key in _TAKES and not _fits(key, value):
            yield f"{where}.{key}", f"expected {_TAKES[key]} or null, got {value!r}"


def typos(settings: GenerationSettings) -> Iterator[tuple[str, str]]:
    """(extra key, the known field it looks like a typo of): sent as written, worth a warning."""
    for key in settings.extra:
        close = difflib.get_close_matches(key, _FIELDS, n=1, cutoff=0.85)
        if close:
            yield key, close[0]


def _fits(key: str, value: Any) -> bool:
    """Whether `value` is one the field `key` takes (its type and range)."""
    try:
        msgspec.convert({key: value}, GenerationSettings)
    except msgspec.ValidationError:
        return False
    return True


def _build(mapping: Mapping[str, Any], typed: Collection[str]) -> GenerationSettings:
    """Settings from a mapping whose `typed` keys are known to fit their fields."""
    fields = {key: value for key, value in mapping.items() if key in typed}
    extra = {key: value for key, value in mapping.items() if key not in typed}
    return msgspec.convert({**fields, "extra": extra, "order": list(mapping)}, GenerationSettings)
