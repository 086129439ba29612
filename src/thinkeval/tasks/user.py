"""Tasks of your own: a task file (`tasks.taskfile`) made into a `TaskSpec`.

A config's `tasks:` entry `{file: quiz.yaml}` (or `{name: quiz, define: {...}}`) is resolved
when the config is loaded into the definition the run records in `config.json`; the config's
and the run's catalogue (`tasks.catalogue`) build the spec from it, so `status`, `verify`,
`report` and summaries find the task again from the run directory alone, registering nothing.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from thinkeval.errors import ConfigError, DatasetError
from thinkeval.generation import GenerationSettings
from thinkeval.inputs import open_regular, reason
from thinkeval.records import Sample, Status, Verdict
from thinkeval.scoring.kinds import AnswerKind, KindError, make_kind
from thinkeval.sections import read_yaml
from thinkeval.tasks.registry import is_builtin
from thinkeval.tasks.spec import DataFile, HubSplit, Row, SimFlavour, TaskSpec
from thinkeval.tasks.taskfile import TaskFile, parse_task

BOXED = "Please reason step by step, and put your final answer within \\boxed{}."
# The prompt and the few-shot reply each built-in answer kind gets unless the task file sets its
# own; a kind added with `register_kind` gets the generic "Answer: ..." pair.
DEFAULT_PROMPTS = {
    "number": "{question}\n" + BOXED,
    "math": "{question}\n" + BOXED,
    "choice": "{question}\n\n{choices}\n\n"
    'Answer with the letter of the correct option, as "Answer: X" on the last line.',
    "boolean": '{question}\n\nAnswer yes or no, as "Answer: yes" or "Answer: no" on the last line.',
    "exact": '{question}\n\nGive your final answer on the last line, as "Answer: ...".',
    "regex": "{question}",
    "code": "{question}\n\nAnswer with a complete Python program in a fenced code block "
    "(```python ... ```).",
}
DEFAULT_REPLIES = {
    "number": "The final answer is $\\boxed{{answer}}$.",
    "math": "The final answer is $\\boxed{{answer}}$.",
    "choice": "Answer: {answer}",
    "boolean": "Answer: {answer}",
    "exact": "Answer: {answer}",
    "regex": "{answer}",
}
GENERIC_PROMPT = '{question}\n\nGive your final answer on the last line, as "Answer: ...".'
GENERIC_REPLY = "Answer: {answer}"
SIM_FLAVOURS: dict[str, SimFlavour] = {
    "number": "number", "math": "math", "choice": "choice", "boolean": "yesno", "code": "code"
}  # fmt: skip
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_YES = {"a", "yes", "true", "1", "y"}
_NO = {"b", "no", "false", "0", "n"}


def _kind(task: TaskFile, source: str) -> AnswerKind:
    answer = task.answer
    options: dict[str, Any] = {}
    if answer.kind == "choice":
        count = len(task.fields.choices) if isinstance(task.fields.choices, list) else 0
        options["letters"] = answer.letters or "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: count or 4]
    if answer.kind == "regex":
        options.update(pattern=answer.pattern, ignore_case=answer.ignore_case)
    try:
        return make_kind(answer.kind, **options)
    except (KindError, ValueError) as exc:
        raise ConfigError(f"{source}: answer: {exc}") from None


def _scalar(value: Any) -> str | None:
    """A field value as prompt text (None for what is not a plain value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


class _Builder:
    """Turns rows of one task file into samples (also the few-shot examples' messages)."""

    def __init__(self, task: TaskFile, kind: AnswerKind, base: Path, source: str) -> None:
        self.task, self.kind, self.base, self.source = task, kind, base, source
        self.template = task.prompt or DEFAULT_PROMPTS.get(task.answer.kind, GENERIC_PROMPT)
        # Options are lettered A, B, ... (a choice kind's own letters).
        self.letters: str = kind.option_letters() or "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def field(self, row: Row, name: str, key: str) -> str:
        if name not in row.fields:
            raise DatasetError(f"{row.where}: missing field {name!r} ({key} in {self.source})")
        value = _scalar(row.fields[name])
        if value is None or not value.strip():
            raise DatasetError(f"{row.where}: field {name!r} is empty or not text ({key})")
        return value

    def options(self, row: Row) -> list[str]:
        choices = self.task.fields.choices
        if choices is None:
            return []
        if isinstance(choices, list):
            options = [self.field(row, name, "fields.choices") for name in choices]
        else:
            listed = row.fields.get(choices)
            if not isinstance(listed, list) or not all(_scalar(o) for o in listed):
                raise DatasetError(
                    f"{row.where}: field {choices!r} must hold a list of options (fields.choices)"
                )
            options = [str(_scalar(option)) for option in listed]
        if self.task.answer.kind == "choice" and len(options) != len(self.letters):
            raise DatasetError(
                f"{row.where}: {len(options)} options but the letters are {self.letters} "
                f"(answer.letters in {self.source})"
            )
        return options

    def gold(self, row: Row, options: list[str]) -> tuple[str, str]:
        """The gold as scored, and as a worked example's reply shows it."""
        raw = self.field(row, self.task.fields.answer, "fields.answer").strip()
        kind = self.task.answer.kind
        if kind == "choice":
            if raw.upper() in self.letters:
                return raw.upper(), raw.upper()
            if raw in options:
                letter = self.letters[options.index(raw)]
                return letter, letter
            raise DatasetError(
                f"{row.where}: answer {raw!r} is neither one of the letters {self.letters} nor "
                "the text of an option (fields.answer)"
            )
        if kind == "boolean":
            if raw.lower() in _YES | _NO:
                yes = raw.lower() in _YES
                return ("A", "yes") if yes else ("B", "no")
            raise DatasetError(f"{row.where}: answer {raw!r} is not yes/no or true/false")
        # A pooled kind's gold check may be slow (Math-Verify), but code's is a JSON parse.
        cheap = not self.kind.pooled or kind == "code"
        problem = self.kind.check_gold(raw) if cheap else None
        if problem is not None:
            raise DatasetError(f"{row.where}: {problem} (fields.answer, kind {kind})")
        return raw, raw

    def render(self, template: str, values: Mapping[str, str], row: Row, key: str) -> str:
        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in values:
                raise DatasetError(
                    f"{self.source}: {key}: placeholder {{{name}}} is not question, choices, "
                    f"answer, subject, an option letter or a field of {row.where}"
                )
            return values[name]

        return _PLACEHOLDER.sub(value, template)

    def turn(self, row: Row, example: bool = False) -> tuple[dict[str, str], str, str, str | None]:
        """The user message for `row`, its gold, its gold as shown, and its subject (which a
        worked example need not have)."""
        fields = self.task.fields
        question = self.field(row, fields.question, "fields.question")
        options = self.options(row)
        gold, shown = self.gold(row, options)
        subject = None
        if fields.subject and not (example and fields.subject not in row.fields):
            subject = self.field(row, fields.subject, "fields.subject")
        values = {name: text for name, v in row.fields.items() if (text := _scalar(v)) is not None}
        values.update(zip(self.letters, options, strict=False))
        values["question"] = question
        lettered = zip(self.letters, options, strict=False)
        values["choices"] = "\n".join(f"{letter}. {option}" for letter, option in lettered)
        values["subject"] = subject or ""
        values["answer"] = shown
        message = {"role": "user", "content": self.render(self.template, values, row, "prompt")}
        return message, gold, shown, subject

    def example(self, row: Row) -> tuple[dict[str, str], dict[str, str]]:
        message, _, shown, _ = self.turn(row, example=True)
        reply_template = (self.task.few_shot and self.task.few_shot.reply) or DEFAULT_REPLIES.get(
            self.task.answer.kind, GENERIC_REPLY
        )
        values = {name: text for name, v in row.fields.items() if (text := _scalar(v)) is not None}
        values["answer"] = shown
        reply = self.render(reply_template, values, row, "few_shot.reply")
        return message, {"role": "assistant", "content": reply}

    @functools.cached_property
    def preamble(self) -> tuple[dict[str, str], ...]:
        """The system message and the worked examples, built once for every sample."""
        messages: list[dict[str, str]] = []
        if self.task.system:
            messages.append({"role": "system", "content": self.task.system})
        few = self.task.few_shot
        if few is not None:
            if few.rows is not None:
                rows = [
                    Row(fields, i, f"{self.source} few_shot.rows[{i}]")
                    for i, fields in enumerate(few.rows)
                ]
            else:
                from thinkeval.tasks.files import local_rows

                assert few.file is not None
                path = _resolve(self.base, few.file)
                rows = list(local_rows(DataFile(str(path)), path.parent))
            for row in rows[: few.limit]:
                messages.extend(self.example(row))
        return tuple(messages)

    def sample(self, row: Row) -> Sample:
        message, gold, _, subject = self.turn(row)
        id_field = self.task.fields.id
        key = self.field(row, id_field, "fields.id").strip() if id_field else str(row.index)
        return Sample(
            id=f"{self.task.name}/{key}",
            task=self.task.name,
            messages=(*self.preamble, message),
            gold=gold,
            subset=subject,
        )


def _resolve(base: Path, file: str) -> Path:
    path = Path(file).expanduser()
    if path.is_absolute():
        return path
    try:
        return (base / path).resolve()
    except RuntimeError:  # a symlink loop: left as written, for `_check_file` to name
        return Path(os.path.abspath(base / path))


def _check_file(path: Path, source: str, key: str) -> None:
    """A task file's data or few-shot file must be a regular file it can open, now."""
    try:
        open_regular(path).close()
    except FileNotFoundError:
        raise ConfigError(f"{source}: {key}: {path} not found") from None
    except OSError as exc:
        raise ConfigError(f"{source}: {key}: cannot read {path} ({reason(exc)})") from None


def _lenient(task: TaskFile, kind: AnswerKind) -> str:
    """The lenient rule: the task file's, an AISBench post-processor where one fits, else the
    task's own kind applied without the protocol's checks (reasoning read, truncation ignored)."""
    if task.lenient is not None:
        return task.lenient
    if kind.name == "number":
        return "gsm8k"
    if kind.name in ("math", "code"):
        return kind.name
    if kind.option_letters() == "ABCD":
        return "last-option-ABCD"
    from thinkeval.scoring.lenient import RULES

    name = f"{task.name}:{kind.name}"
    RULES[name] = functools.partial(_kind_rule, kind)
    return name


def _kind_rule(kind: AnswerKind, text: str, gold: str) -> Verdict:
    found = kind.find(text)
    if found is None:
        return Verdict("no_answer")
    if not found.readable:
        return Verdict("no_answer", found.answer, found.rule)
    status: Status = "correct" if kind.matches(found.answer, gold) else "wrong"
    return Verdict(status, found.answer, found.rule)


def build_spec(task: TaskFile, base: Path, source: str, check_files: bool = True) -> TaskSpec:
    """The spec of a task file whose relative paths start at `base`; with `check_files`, a
    missing data file is an error now rather than when the run reads it."""
    kind = _kind(task, source)
    data = task.data
    if data.file is not None:
        path = _resolve(base, data.file)
        if check_files:
            _check_file(path, source, "data.file")
        fmt = data.format or path.suffix.lower().lstrip(".")
        columns = tuple(task.fields.used()) if fmt == "csv" else ()
        file = DataFile(str(path), format=fmt, columns=columns)
    else:
        assert data.hub is not None
        hub = data.hub
        file = DataFile("", hub=HubSplit(hub.path, hub.name, hub.split, hub.revision))
    if check_files and task.few_shot is not None and task.few_shot.file is not None:
        _check_file(_resolve(base, task.few_shot.file), source, "few_shot.file")
    builder = _Builder(task, kind, base, source)
    return TaskSpec(
        name=task.name,
        version=task.version,
        description=task.description or f"your task from {source}",
        files=(file,),
        sample=builder.sample,
        answer=kind,
        lenient=_lenient(task, kind),
        budgets=task.budgets,
        generation=GenerationSettings.recorded(task.generation),  # checked with the file
        repeats=task.repeats,
        ids_from_data=task.fields.id is not None,
        prompt_source=f"task file {source}",
        sim_flavour=SIM_FLAVOURS.get(kind.name, "number"),
        suite="user",
    )


def definition(task: TaskFile, base: Path) -> dict[str, Any]:
    """The task file with its paths made absolute: what a run records to find it again."""
    resolved: dict[str, Any] = msgspec.to_builtins(task)
    if task.data.file is not None:
        resolved["data"]["file"] = str(_resolve(base, task.data.file))
    if task.few_shot is not None and task.few_shot.file is not None:
        resolved["few_shot"]["file"] = str(_resolve(base, task.few_shot.file))
    return resolved


def _build(task: TaskFile, base: Path, source: str, check_files: bool = True) -> TaskSpec:
    if is_builtin(task.name):
        raise ConfigError(
            f"{source}: name: task {task.name!r} is built in; give your task another name"
        )
    return build_spec(task, base, source, check_files)


def load_task_file(path: Path) -> TaskSpec:
    """Read and check the task file at `path` (registered nowhere: pass the spec on)."""
    source = str(path)
    return _build(parse_task(read_yaml(path, "task file"), source), path.parent, source)


def resolve_entry(entry: dict[str, Any], base: Path, where: str) -> dict[str, Any]:
    """A config `tasks:` entry with its task's `name` and, for a task of your own (`file`
    relative to `base`, or `define`), the resolved `definition` a run records and reads its
    spec from (`tasks.catalogue`)."""
    file, inline = entry.get("file"), entry.get("define")
    if "definition" in entry:
        raise ConfigError(f"{where}.definition: unknown key (a task of your own: file or define)")
    if file is None and inline is None:
        return entry
    if file is not None and inline is not None:
        raise ConfigError(f"{where}: give either file or define, not both")
    if file is not None:
        if not isinstance(file, str):
            raise ConfigError(f"{where}.file: expected the path of a task file, got {file!r}")
        path = _resolve(base, file)
        task = parse_task(read_yaml(path, "task file"), str(path))
        spec, base = _build(task, path.parent, str(path)), path.parent
    else:
        name = entry.get("name")
        data = {"name": name, **inline} if isinstance(inline, dict) and name else inline
        task = parse_task(data, f"{where}.define")
        spec = _build(task, base, f"{where}.define")
    if entry.get("name") not in (None, spec.name):
        raise ConfigError(
            f"{where}.name: {entry['name']!r} differs from the name the task defines "
            f"({spec.name!r}); leave name out"
        )
    return {**entry, "name": spec.name, "definition": definition(task, base)}


def recorded_spec(name: str, recorded: Mapping[str, Any], where: str) -> TaskSpec:
    """The spec of a task of your own from the definition a run recorded (data files not
    checked: a summary needs only how answers are scored)."""
    task = parse_task(dict(recorded), f"{where}: task {name!r}")
    return _build(task, Path("/"), f"{where}: task {name!r}", check_files=False)
