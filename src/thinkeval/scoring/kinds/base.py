"""What every answer kind provides: find the final answer of a finished reply, compare it."""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable


class KindError(ValueError):
    """An answer kind that cannot be built (unknown name, bad option); the message says which."""


class Found(NamedTuple):
    """The final answer a kind found in a reply, and the rule that found it (for auditing).

    `readable` is False when the reply states an answer the kind cannot read as its value (a JSON
    answer field `"cannot be determined"` for a number): the verdict is then `no_answer`, with
    the text and the rule kept, never a stated wrong answer.
    """

    answer: str
    rule: str
    readable: bool = True


@runtime_checkable
class AnswerKind(Protocol):
    """The strict scoring of one kind of answer (a number, a letter, an expression, ...).

    `find` reads the visible text of a reply that finished normally (think blocks removed,
    full-width forms folded to ASCII) and returns its final answer, or None when the reply
    states none. `matches` compares a found answer with the gold. `version` changes whenever
    some reply would be judged differently, so verdicts recorded under an older version are
    scored again. `pooled` kinds are too slow or too risky (e.g. symbolic algebra) to run on
    the event loop: they are scored in a worker process with a time limit.
    """

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def pooled(self) -> bool: ...

    def find(self, text: str) -> Found | None: ...

    def matches(self, answer: str, gold: str) -> bool: ...

    def check_gold(self, gold: str) -> str | None:
        """Why `gold` can never match any answer of this kind, or None when it is fine."""
        ...
