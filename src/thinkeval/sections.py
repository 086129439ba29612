"""Reading YAML into strict config sections: unknown keys and wrong types refused by msgspec, then
each section's `problems()`, every mistake one line naming the file and the key path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import yaml

from thinkeval.errors import ConfigError
from thinkeval.records import decode_error_parts

# A problem found after the types check out: (key path relative to its object, message).
Problem = tuple[str, str]


class Section(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """A config section: unknown keys and wrong types are refused when the YAML is converted."""

    def problems(self) -> Iterator[Problem]:
        """Every mistake the types cannot express, with the key path relative to the section."""
        return iter(())


# msgspec's wording for a key problem, and ours; the key itself follows in backquotes.
_KEY_PROBLEMS = (
    ("Object contains unknown field ", "unknown key (check the spelling: {docs})"),
    ("Object missing required field ", "required key is missing"),
)


def describe_conversion_error(
    error: msgspec.ValidationError, docs: str = "docs/configuration.md"
) -> str:
    """`key.path: what is wrong` for the first unknown key, missing key or wrong type; an
    unknown key points at `docs`."""
    path, message = decode_error_parts(error)
    for wording, meaning in _KEY_PROBLEMS:
        if message.startswith(wording):
            key = message.removeprefix(wording).strip("`")
            meaning = meaning.format(docs=docs)
            return f"{path}.{key}: {meaning}" if path else f"{key}: {meaning}"
    return f"{path or '(top level)'}: {message}"


Checked = TypeVar("Checked", bound=Section)


def convert_checked(
    data: Any, kind: type[Checked], source: str, docs: str = "docs/configuration.md"
) -> Checked:
    """`data` as a `kind` section, its types and then its `problems()` checked; every mistake
    is a `ConfigError` line `source: key.path: what is wrong` (unknown keys point at `docs`)."""
    try:
        value = msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{source}: {describe_conversion_error(exc, docs)}") from None
    problems = [f"{source}: {path}: {message}" for path, message in value.problems()]
    if problems:
        raise ConfigError("\n".join(problems))
    return value


def read_yaml(path: Path, what: str) -> Any:
    """The YAML document in `path` (`what` names it in errors: "config", "task file")."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: {what} file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the {what}: {exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}:{where}: not valid YAML: {problem}") from None
