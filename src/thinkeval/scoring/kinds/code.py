"""A program as the answer (HumanEval, LiveCodeBench): the reply's final Python code block, run
against the task's tests in the sandbox (`execution`), correct only when every test passes.

Which block counts: the last fenced block (``` or ~~~) of the content, never the reasoning,
whose info string is empty or names Python (`python`, `py`, `python3`); blocks in other
languages (`text`, `bash`, output shown as an example) are skipped, and an unclosed fence
counts for nothing. A reply without such a block is `no_answer`. The kind is `pooled`:
executions run in the scoring workers, never on the event loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from thinkeval.errors import ThinkevalError
from thinkeval.records import Verdict
from thinkeval.scoring.kinds.base import AnswerKind, Found

# A fence at the start of a line, its info string, the body, the same fence closing it.
_BLOCK = re.compile(
    r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)\n"
    r"(?P<body>.*?)^[ \t]{0,3}(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_PYTHON = frozenset({"", "python", "py", "python3"})


def final_block(text: str) -> tuple[str, int] | None:
    """The last Python (or unlabelled) fenced block of `text` and how many such blocks there
    are, or None.

    >>> text = "Try\\n```python\\nx = 1\\n```\\nthen\\n```\\nx = 2\\n```\\n```text\\nout\\n```"
    >>> final_block(text)
    ('x = 2\\n', 2)
    """
    blocks = [
        m.group("body") for m in _BLOCK.finditer(text)
        if m.group("info").strip().split(" ")[0].lower() in _PYTHON
    ]  # fmt: skip
    return (blocks[-1], len(blocks)) if blocks else None


@dataclass(frozen=True)
class CodeKind(AnswerKind):
    """The final Python block, correct when it passes every test in the gold
    (`execution.grading`)."""

    name: str = "code"
    version: str = "2"  # 2: stdout compared as LiveCodeBench's grader does (numbers too)
    pooled: bool = True
    time_limit_s: float = 300.0  # the pool's limit for one reply: every case, a re-run

    def find(self, text: str) -> Found | None:
        found = final_block(text)
        if found is None:
            return None
        body, count = found
        return Found(body, "last python block" if count == 1 else f"last of {count} blocks")

    def matches(self, answer: str, gold: str) -> bool:
        return self.explain(Found(answer, ""), gold).is_correct

    def explain(self, found: Found, gold: str) -> Verdict:
        """The verdict with its reason: `correct`, or `wrong` with a rule that starts with
        `failed_test`, `crash`, `timeout` or `memory` and shows stdout/stderr."""
        from thinkeval.execution.grading import grade

        graded = grade(found.answer, gold)
        lines = found.answer.count("\n") + 1
        answer = f"{lines}-line program"
        if graded.passed:
            return Verdict("correct", answer, f"{found.rule}: {graded.detail}")
        return Verdict("wrong", answer, f"{graded.reason}: {graded.detail}")

    def check_gold(self, gold: str) -> str | None:
        from thinkeval.execution.grading import GoldError, parse_gold

        try:
            parse_gold(gold)
        except GoldError as exc:
            return str(exc)
        return None

    def ready(self) -> None:
        """Refuse (one line) where the sandbox cannot run, unless `--unsafe-local-exec`."""
        from thinkeval.execution.grading import unsafe_local
        from thinkeval.execution.sandbox import check_sandbox

        why = None if unsafe_local() else check_sandbox()
        if why is not None:
            raise ThinkevalError(why)
