"""Task files: a benchmark of your own described in YAML, no Python (docs/tasks.md).

A task file names its data (a local JSON Lines, CSV or Parquet file, or a hub dataset), which
fields hold the question, the answer and optionally the choices, an id and a subject, the
prompt template, few-shot examples, the answer kind, budgets, generation settings and repeats.
This module reads and checks it; `tasks.user` turns it into a `TaskSpec`. Every mistake is a
`ConfigError` of one line naming the file and the key (`quiz.yaml: answer.kind: ...`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import msgspec

from thinkeval.errors import ConfigError
from thinkeval.scoring.kinds import KINDS
from thinkeval.sections import Problem, Section, convert_checked
from thinkeval.settings import budget_problems, generation_problems

FORMATS = ("jsonl", "csv", "parquet")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class HubData(Section, kw_only=True, frozen=True):
    """A split of a Hugging Face hub dataset."""

    path: str
    name: str | None = None
    split: str = "test"
    revision: str | None = None


class Data(Section, kw_only=True, frozen=True):
    """Where the rows are: a local `file` (relative to the task file) or a `hub` split."""

    file: str | None = None
    format: str | None = None
    hub: HubData | None = None

    def problems(self) -> Iterator[Problem]:
        if (self.file is None) == (self.hub is None):
            yield "", "give either file (a local JSONL, CSV or Parquet file) or hub, not both"
        if self.format is not None and self.format not in FORMATS:
            yield "format", f"format must be one of {', '.join(FORMATS)}, got {self.format!r}"
        if self.file is not None and self.format is None:
            suffix = Path(self.file).suffix.lower().lstrip(".")
            if suffix not in FORMATS:
                yield (
                    "file",
                    (
                        f"cannot tell the format of {self.file!r} from its suffix: name it .jsonl, "
                        ".csv or .parquet, or set data.format"
                    ),
                )


class Fields(Section, kw_only=True, frozen=True):
    """Which field of a row holds what. `choices` lists the fields holding the options (lettered
    A, B, ... in that order), or names one field holding a list of options."""

    question: str
    answer: str
    choices: str | list[str] | None = None
    id: str | None = None
    subject: str | None = None

    def problems(self) -> Iterator[Problem]:
        if isinstance(self.choices, list) and not 2 <= len(self.choices) <= 26:
            yield "choices", "choices must list 2 to 26 fields, one per option"

    def used(self) -> list[str]:
        """Every field named (the columns a CSV header must have)."""
        named = [self.question, self.answer, self.id, self.subject]
        if isinstance(self.choices, list):
            named += self.choices
        elif self.choices is not None:
            named.append(self.choices)
        return [name for name in named if name is not None]


class FewShot(Section, kw_only=True, frozen=True):
    """Worked examples sent before each question as earlier turns of the chat: `rows` given
    here, or the rows of `file` (same fields as the data), the first `limit` of them."""

    rows: list[dict[str, Any]] | None = None
    file: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1)] | None = None
    reply: str | None = None  # the assistant's turn; default per answer kind

    def problems(self) -> Iterator[Problem]:
        if (self.rows is None) == (self.file is None):
            yield "", "give either rows (examples written here) or file, not both"


class Answer(Section, kw_only=True, frozen=True):
    """How replies are scored: the answer kind and its options."""

    kind: str
    letters: str | None = None  # choice
    pattern: str | None = None  # regex
    ignore_case: bool = True  # regex

    def problems(self) -> Iterator[Problem]:
        # The kinds registry itself, so a kind added with `register_kind` is one a file can use.
        if self.kind not in KINDS:
            yield "kind", f"unknown answer kind {self.kind!r}; one of {', '.join(KINDS)}"
        if self.kind == "regex" and not self.pattern:
            yield "pattern", "the regex kind needs a pattern (its group 'answer' is the answer)"
        if self.pattern is not None and self.kind != "regex":
            yield "pattern", "pattern is only for kind: regex"
        if self.letters is not None and self.kind != "choice":
            yield "letters", "letters is only for kind: choice"


class TaskFile(Section, kw_only=True, frozen=True):
    """A whole task file."""

    name: str
    description: str = ""
    data: Data
    fields: Fields
    prompt: str | None = None
    system: str | None = None
    few_shot: FewShot | None = None
    answer: Answer
    lenient: str | None = None
    budgets: tuple[int, int] = (2048, 8192)
    generation: dict[str, Any] = msgspec.field(default_factory=dict)
    repeats: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 1
    version: str = "1"

    def problems(self) -> Iterator[Problem]:
        if not _NAME.match(self.name):
            yield (
                "name",
                (
                    f"task name {self.name!r} must start with a letter or digit and use only "
                    "letters, digits, '.', '_' and '-' (at most 64)"
                ),
            )
        for key, section in (("data", self.data), ("fields", self.fields),
                             ("answer", self.answer), ("few_shot", self.few_shot)):  # fmt: skip
            if section is not None:
                for where, message in section.problems():
                    yield (f"{key}.{where}" if where else key), message
        if self.answer.kind == "choice" and self.fields.choices is None and self.prompt is None:
            yield (
                "fields.choices",
                ("a choice task needs fields.choices (the option fields), or a prompt of its own"),
            )
        reply = self.few_shot.reply if self.few_shot is not None else None
        templates = (("prompt", self.prompt), ("few_shot.reply", reply))
        for key, template in templates:
            problem = brace_problem(template) if template else None
            if problem is not None:
                yield key, problem
        yield from (("budgets", message) for message in budget_problems(self.budgets))
        yield from generation_problems(self.generation)
        if self.lenient is not None:
            from thinkeval.scoring.lenient import RULES

            if self.lenient not in RULES:
                yield "lenient", f"unknown lenient rule {self.lenient!r}; one of {', '.join(RULES)}"


def brace_problem(template: str) -> str | None:
    """What is wrong with the braces of a prompt template, if anything: a `{` never closed (as
    in `Q: {question`) or a `}` closing nothing would otherwise send the placeholder's literal
    text with every sample, and the run would look fine."""
    opened: list[int] = []
    for at, char in enumerate(template):
        if char == "{":
            opened.append(at)
        elif char == "}":
            if not opened:
                return (
                    f"the '}}' at character {at + 1} ({template[max(0, at - 15) : at + 1]!r}) "
                    "closes no '{'; placeholders are written {name}"
                )
            opened.pop()
    if opened:
        at = opened[-1]
        return (
            f"the '{{' at character {at + 1} ({template[at : at + 20]!r}) is never closed; "
            "placeholders are written {name}, e.g. {question}"
        )
    return None


def parse_task(data: Any, source: str) -> TaskFile:
    """Check an already-parsed task definition; `source` names it in every error."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a task file must be a YAML mapping of keys to values")
    return convert_checked(data, TaskFile, source, "docs/tasks.md")
