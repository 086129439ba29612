"""Reading YAML into strict config sections: unknown keys and wrong types refused by msgspec, then
each section's `problems()`, every mistake one line naming the file and the key path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import yaml

from thinkeval.errors import ConfigError
from thinkeval.inputs import read_bounded, reason
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
    """The YAML document in `path` (`what` names it in errors: "config", "task file"): a regular
    file of at most `MAX_CONFIG_BYTES`, checked by `load_yaml`."""
    try:
        data = read_bounded(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: {what} file not found") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the {what}: {reason(exc)}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{path}: line {line}: not valid UTF-8 ({exc.reason})") from None
    return load_yaml(text, str(path))


def load_yaml(text: str, source: str) -> Any:
    """The YAML document in `text` (`source` names it in errors), refusing what `yaml.safe_load`
    lets through silently or cannot survive: a key given twice in one mapping (YAML keeps the
    last, so a second `tasks:` would quietly replace the first), and aliases that expand past
    `MAX_NODES` values or refer to themselves (an "anchor bomb")."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _Checker(loader, source).size(node)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{source}:{where}: not valid YAML: {problem}") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid YAML: nested too deeply") from None
    finally:
        loader.dispose()


# Values (scalars, lists and mappings) a document may hold once its aliases are expanded.
MAX_NODES = 100_000
_MERGE = "tag:yaml.org,2002:merge"


class _Checker:
    """Walks a composed YAML document once per distinct node, counting the values its aliases
    expand to and refusing duplicate keys."""

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader, self.source = loader, source
        self.sizes: dict[int, int] = {}
        self.open: set[int] = set()

    def size(self, node: yaml.Node) -> int:
        """How many values `node` expands to (itself included)."""
        known = self.sizes.get(id(node))
        if known is not None:
            return known
        line = node.start_mark.line + 1
        if id(node) in self.open:
            raise ConfigError(f"{self.source}: line {line}: an alias refers to itself")
        self.open.add(id(node))
        total = 1
        if isinstance(node, yaml.MappingNode):
            self._duplicates(node)
            children = [child for pair in node.value for child in pair]
        else:
            children = node.value if isinstance(node, yaml.SequenceNode) else []
        for child in children:
            total += self.size(child)
            if total > MAX_NODES:
                raise ConfigError(
                    f"{self.source}: line {line}: expands to more than {MAX_NODES} values "
                    "(aliases repeated inside aliases?); write the values out"
                )
        self.open.discard(id(node))
        self.sizes[id(node)] = total
        return total

    def _duplicates(self, node: yaml.MappingNode) -> None:
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = self.loader.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in first:
                raise ConfigError(
                    f"{self.source}: line {line}: key {key!r} is given twice (first on line "
                    f"{first[key]}); YAML would keep only the last, so remove one"
                )
            first[key] = line
