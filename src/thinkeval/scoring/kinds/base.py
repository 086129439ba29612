"""What every answer kind provides: find the final answer of a finished reply, compare it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, NamedTuple

from thinkeval.records import Status, ToolCall, Verdict


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


class AnswerKind(ABC):
    """The strict scoring of one kind of answer (a number, a letter, an expression, ...):
    subclass it (a frozen dataclass, module-level: workers get it pickled).

    `find` reads the visible text of a reply that finished normally (think blocks removed,
    full-width forms folded to ASCII) and returns its final answer, or None when the reply
    states none. `matches` compares a found answer with the gold. `version` changes whenever
    some reply would be judged differently, so verdicts recorded under an older version are
    scored again. `pooled` kinds are too slow or too risky (e.g. symbolic algebra) to run on
    the event loop: they are scored in a worker process with a time limit.

    The members after `check_gold` are capabilities with defaults, for kinds that need them.
    """

    name: str
    version: str
    pooled: bool
    # A worker call's time limit for one reply of a pooled kind (None: the pool's).
    time_limit_s: float | None = None
    # Whether `judge` gives the verdict on a whole finished reply instead of `find` and
    # `matches` (IFEval's instructions, read byte for byte).
    judges_whole_reply: ClassVar[bool] = False
    # Whether `judge_calls` gives the verdict from the reply's tool calls (BFCL), not its text.
    judges_tool_calls: ClassVar[bool] = False

    @abstractmethod
    def find(self, text: str) -> Found | None: ...

    @abstractmethod
    def matches(self, answer: str, gold: str) -> bool: ...

    @abstractmethod
    def check_gold(self, gold: str) -> str | None:
        """Why `gold` can never match any answer of this kind, or None when it is fine."""

    def ready(self) -> None:
        """Raise a one-line error when this kind cannot judge here (code without a working
        sandbox), before any request; default: it can."""
        return None

    def warm_up(self) -> None:
        """Load what a pooled kind needs, in a worker before its first real call (default:
        nothing)."""
        return None

    def quick_matches(self, answer: str, gold: str) -> bool | None:
        """`matches` where it is decided at once (no algebra, nothing that can hang), else None;
        default: never, so a pooled kind's finished replies go to a worker."""
        return None

    def explain(self, found: Found, gold: str) -> Verdict:
        """The verdict on a found answer (default: by `matches`; the code kind says why)."""
        status: Status = "correct" if self.matches(found.answer, gold) else "wrong"
        return Verdict(status, found.answer, found.rule)

    def option_letters(self) -> str | None:
        """The letters a multiple-choice kind's options are lettered with (None: no options)."""
        return None

    def answer_format(self) -> str:
        """How an LLM judge is told to write this kind's answer (`scoring/judge.py`'s prompt)."""
        return f"the final answer as the reply writes it ({self.name})"

    def judge(self, text: str, gold: str) -> Verdict:
        """The verdict on a whole finished reply, for a kind that `judges_whole_reply`."""
        raise NotImplementedError(f"answer kind {self.name} finds its answer with find")

    def judge_calls(self, calls: Sequence[ToolCall] | None, gold: str) -> Verdict:
        """The verdict on a finished reply's tool calls, for a kind that `judges_tool_calls`."""
        raise NotImplementedError(f"answer kind {self.name} reads text, not tool calls")
