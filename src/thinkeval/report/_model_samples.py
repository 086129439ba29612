"""The sample browser's part of the report: its index columns and each sample's texts.

Only the HTML file embeds these (`Report.browser`); `thinkeval view` serves the same shapes.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from thinkeval.report._frozen import Frozen as _Frozen

# A long text as the page shows it: whole, or (first part, characters left out, last part).
Text = str | tuple[str, int, str]


class Judgement(_Frozen, frozen=True, array_like=True):
    """A scorer's verdict on one reply: status, extracted answer, the rule that matched."""

    status: str
    answer: str | None
    rule: str | None


class ReplyView(_Frozen, frozen=True, omit_defaults=True):
    """One counted reply as the sample browser shows it (short keys: the page holds thousands)."""

    phase: Literal["fixed", "retry"] = msgspec.field(name="ph")
    budget: int = msgspec.field(name="b")
    max_tokens: int = msgspec.field(name="mt")
    finish_reason: str | None = msgspec.field(default=None, name="f")
    completion_tokens: int | None = msgspec.field(default=None, name="ct")
    reasoning_tokens: int | None = msgspec.field(default=None, name="rt")
    latency_s: float | None = msgspec.field(default=None, name="lat")
    ttft_s: float | None = msgspec.field(default=None, name="ttft")
    error: str | None = msgspec.field(default=None, name="e")
    strict: Judgement | None = msgspec.field(default=None, name="s")
    # Every other recording scorer's verdict, by name (`SampleIndex.scorers`); none for an error.
    verdicts: dict[str, Judgement] = msgspec.field(default_factory=dict, name="v")
    content: Text | None = msgspec.field(default=None, name="c")
    # A tool-calling reply's calls as the server parsed them (JSON text; the page escapes it).
    tool_calls: str | None = msgspec.field(default=None, name="tc")
    reasoning: Text | None = msgspec.field(default=None, name="r")
    reasoning_chars: int = msgspec.field(default=0, name="rl")  # before shortening
    # The server's words when it could not deliver the finished output in its format
    # (`Attempt.unparsed`, rule server-unparsed; the page shows them as text, never markup).
    unparsed: str | None = msgspec.field(default=None, name="up")
    # The judge scorer's reading (status, answer, the judge's model id as the rule): None where
    # it reads nothing (not a finished reply, or a run not judged); status "pending" until read.
    judge: Judgement | None = msgspec.field(default=None, name="j")
    # Why it did not finish (docs/diagnosis.md), and the loop's repeated block to highlight.
    diagnosis: str | None = msgspec.field(default=None, name="dg")
    loop_block: str | None = msgspec.field(default=None, name="lb")
    # A wrong program's reason (failed_test, crash, timeout, memory; docs/code.md) and the
    # excerpt of its stderr or stdout its verdict quotes.
    code_reason: str | None = msgspec.field(default=None, name="cr")
    code_detail: str | None = msgspec.field(default=None, name="cx")


class QuestionView(_Frozen, frozen=True, omit_defaults=True):
    """What the browser shows of a sample beyond the index: the prompt and its exemplars."""

    prompt: Text = msgspec.field(name="p")
    exemplars: str | None = msgspec.field(default=None, name="x")  # key into `exemplars`


class SampleIndex(_Frozen, frozen=True):
    """The sample browser's columns: what it filters, sorts and pages on, without any text.

    Questions are (task, sample) pairs; rows are one model's outcome on one question and repeat
    (a task asked k = `task_repeats[task]` times has k rows per model and question, repeat 0
    first, the others right after it). Verdict columns hold codes into `statuses` (a verdict,
    "error", or "pending"), finish reasons codes into `finishes` (-1: none), subjects codes into
    `subjects` (-1: none). A row is keyed by its model, question and repeat.
    """

    models: list[str]
    tasks: list[str]
    subjects: list[str]
    statuses: list[str]
    finishes: list[str]
    task_repeats: list[int]  # k per task
    judged: bool  # some run has judge verdicts: `row_judge` means something
    # The recording scorers beside strict, in order (lenient first): `row_scorers`' bits.
    scorers: list[str]
    question_id: list[str]
    question_task: list[int]
    question_subject: list[int]
    question_gold: list[str]  # a long one shortened (`_samples_code.shown_gold`)
    row_question: list[int]
    row_model: list[int]
    row_repeat: list[int]  # 0 .. k - 1
    row_fixed: list[int]  # fixed verdict code
    row_final: list[int]  # adaptive verdict code
    row_fixed_finish: list[int]
    row_retry_finish: list[int]  # -1: no retry reply
    row_due: list[int]  # 1: the fixed reply called for the retry at B2 (the judge's word)
    # Per scorer i of `scorers`: bit 2i set when it counts the fixed reply correct, bit 2i + 1
    # when it counts the adaptive outcome correct.
    row_scorers: list[int]
    row_tokens: list[int]  # completion tokens of the counted replies, summed (-1: not reported)
    row_latency_ms: list[int]  # their latency, summed, in milliseconds (-1: not timed)
    # The judge scorer on the row's finished reply: -1 none (no finished reply, or not judged),
    # 0 not judged yet, 1 it reads the reply as strict does, 2 it reads it differently.
    row_judge: list[int]
    # Why a reply did not finish (docs/diagnosis.md): codes into `diagnoses`, -1 where the
    # phase's reply finished, is an error or is not there.
    diagnoses: list[str] = msgspec.field(default_factory=list)
    row_fixed_diagnosis: list[int] = msgspec.field(default_factory=list)
    row_retry_diagnosis: list[int] = msgspec.field(default_factory=list)
    # Why a code task's wrong program failed (docs/code.md): codes into `code_reasons` (empty
    # without code tasks), -1 where the phase's reply is not a wrong program.
    code_reasons: list[str] = msgspec.field(default_factory=list)
    row_fixed_code: list[int] = msgspec.field(default_factory=list)
    row_retry_code: list[int] = msgspec.field(default_factory=list)


class EmbedPart(_Frozen, frozen=True):
    """One kind of sample the HTML file embeds: how many there are and how many it holds."""

    kind: str
    total: int
    embedded: int


class Browser(_Frozen, frozen=True):
    """The per-sample data the HTML file embeds: an index of the chosen rows and their texts."""

    index: SampleIndex
    questions: list[QuestionView]  # aligned with index.question_id
    rows: list[list[ReplyView]]  # aligned with index.row_question: the counted replies
    exemplars: dict[str, list[dict[str, str]]]
    parts: list[EmbedPart]  # what was chosen, in order of priority
    total_questions: int
    total_rows: int
    budget_bytes: int
    limits: dict[str, tuple[int, int]]  # text kind -> (first, last) characters kept

    @property
    def complete(self) -> bool:
        """Every sample of the runs is embedded."""
        return len(self.index.row_question) == self.total_rows
