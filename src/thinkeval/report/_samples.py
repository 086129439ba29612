"""The sample browser's data: every question and row as columns, and each row's texts on demand.

A question is one sample of one task (every sample any combined run asked, in the first run's
order); a row is one model's outcome on one question and repeat (a task asked k times per
question has k rows per model and question, consecutive, repeat 0 first). The `Catalog` holds
the rows as numpy columns, a few dozen bytes each, so the viewer can index a 100,000-sample run;
a row's texts are read back from the journal (and re-scored, for the verdicts' answers and
rules) only when shown.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import orjson

from thinkeval.records import Attempt, Phase, Verdict
from thinkeval.report._cells import Collection, ModelTask, RunData
from thinkeval.report._model_samples import Judgement, QuestionView, ReplyView, SampleIndex, Text
from thinkeval.report._samples_code import REASONS, code_column, is_code, with_code_failure
from thinkeval.report._samples_diagnosis import (
    DIAGNOSES,
    Diagnosed,
    diagnosis_column,
    with_diagnosis,
)
from thinkeval.results.columns import (
    CORRECT,
    ERROR,
    JUDGE_DIFFERS,
    JUDGE_MISSING,
    NONE,
    PENDING,
    STATUS_CODES,
)
from thinkeval.scoring.scorers import STRICT, recording_scorers
from thinkeval.store.rundir import SamplesFile

# Columns of `SampleIndex` that describe rows, in its field order.
ROW_COLUMNS = tuple(name for name in SampleIndex.__struct_fields__ if name.startswith("row_"))


def scorer_bits(cell: ModelTask, at: np.ndarray, arrived: np.ndarray) -> np.ndarray:
    """`SampleIndex.row_scorers` of the units `at`: per recording scorer i beside strict, bit
    2i for correct at the fixed budget, bit 2i + 1 for a correct adaptive outcome (`arrived`:
    the adaptive outcome is there)."""
    bits = np.zeros(len(at), dtype=np.int32)
    for i, name in enumerate(cell.fixed.names[1:]):
        fixed = cell.fixed.correct_by(name)[at].astype(np.int32)
        final = (cell.adaptive_correct(name)[at] & arrived).astype(np.int32)
        bits |= (fixed << (2 * i)) | (final << (2 * i + 1))
    return bits


@dataclass(frozen=True)
class Limits:
    """How much of each long text a view keeps: (first, last) characters; None keeps all."""

    reasoning: tuple[int, int] | None
    content: tuple[int, int] | None
    prompt: tuple[int, int] | None

    def as_dict(self) -> dict[str, tuple[int, int]]:
        kinds = {"reasoning": self.reasoning, "content": self.content, "prompt": self.prompt}
        return {kind: value for kind, value in kinds.items() if value is not None}


# Shortening that would save less than this is not worth the marker.
MIN_OMITTED = 500


def shorten(text: str, keep: tuple[int, int] | None) -> Text:
    """`text`, or `(first head chars, number left out, last tail chars)` when it is long.

    >>> shorten("a" * 2000, (100, 50))[1]
    1850
    """
    if keep is None:
        return text
    head, tail = keep
    if len(text) <= head + tail + MIN_OMITTED:
        return text
    return (text[:head], len(text) - head - tail, text[len(text) - tail :])


def discordant(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the first model is right and the second wrong, and the reverse, among the samples
    both answered (outcome codes; an error or a pending sample is no answer)."""
    answered = (first < ERROR) & (second < ERROR)
    first_right, second_right = first == CORRECT, second == CORRECT
    return answered & first_right & ~second_right, answered & second_right & ~first_right


class Catalog:
    """Every question and row of a collection, as columns, and each row's texts on demand."""

    def __init__(self, data: Collection) -> None:
        self.data = data
        self.models = data.models
        self.tasks = data.tasks
        self.statuses = list(STATUS_CODES)
        # The recording scorers beside strict, as the columns hold them (strict is first).
        self.scorers = [scorer.name for scorer in recording_scorers()[1:]]
        ids: list[str] = []
        golds: list[str] = []
        subject_names: list[str | None] = []
        task_of: list[np.ndarray] = []
        where: list[np.ndarray] = []  # per task: (models, questions) -> sample position, or -1
        for t, task in enumerate(data.tasks):
            runs = list(dict.fromkeys(data.cells[(m, task)].run for m in data.models))
            first = runs[0].samples[task]
            task_ids, task_golds, task_subsets = (
                list(first.ids),
                list(first.golds.kept),  # a long gold as the index shows it
                list(first.subsets),
            )
            for run in runs[1:]:  # samples only later runs asked come after the first run's
                items, known = run.samples[task], first.position
                for i, sample_id in enumerate(items.ids):
                    if sample_id not in known:
                        task_ids.append(sample_id)
                        task_golds.append(items.golds.shown(i))
                        task_subsets.append(items.subsets[i])
            positions = np.full((len(data.models), len(task_ids)), -1, dtype=np.int32)
            for m, model in enumerate(data.models):
                items = data.cells[(model, task)].samples
                if items.ids == task_ids[: len(items)]:
                    positions[m, : len(items)] = np.arange(len(items))
                else:
                    lookup = items.position
                    for q, sample_id in enumerate(task_ids):
                        positions[m, q] = lookup.get(sample_id, -1)
            ids += task_ids
            golds += task_golds
            subject_names += task_subsets
            task_of.append(np.full(len(task_ids), t, dtype=np.int32))
            where.append(positions)
        self.question_id = ids
        self.question_gold = golds
        self.subjects = list(dict.fromkeys(s for s in subject_names if s))
        subject_code = {name: code for code, name in enumerate(self.subjects)}
        self.question_subject = np.array(
            [subject_code[s] if s else NONE for s in subject_names], dtype=np.int32
        )
        self.question_task = np.concatenate(task_of) if task_of else np.zeros(0, np.int32)
        self.task_repeats = [data.repeats[task] for task in data.tasks]
        # k per question: the replies each model gave it (its task's repeats)
        self.question_repeats = np.array(self.task_repeats, dtype=np.int32)[self.question_task]
        # position[m, q]: where question q sits in model m's samples of its task (-1: not asked)
        self.position = np.concatenate(where, axis=1) if where else np.zeros((0, 0), np.int32)
        asked_q, asked_m = np.nonzero(self.position.T >= 0)  # question-major, models in order
        per = self.question_repeats[asked_q]
        starts = np.cumsum(per) - per
        self.row_question = np.repeat(asked_q, per).astype(np.int32)
        self.row_model = np.repeat(asked_m, per).astype(np.int32)
        self.row_repeat = (np.arange(int(per.sum())) - np.repeat(starts, per)).astype(np.int32)
        # first_row[m, q]: the row of model m's repeat 0 on question q (-1: not asked); its
        # other repeats follow it
        self.first_row = np.full(self.position.shape, -1, dtype=np.int32)
        self.first_row[asked_m, asked_q] = starts
        self.diagnosed = Diagnosed()  # the index's diagnoses, for the replies' views
        self.columns = self._columns()
        self._samples_files: dict[tuple[int, str], SamplesFile] = {}

    def __len__(self) -> int:
        return len(self.row_question)

    def rows_of_question(self, question: int) -> np.ndarray:
        """Every row of a question: each model's, each repeat, in row order."""
        firsts = self.first_row[:, question]
        firsts = firsts[firsts >= 0]
        k = int(self.question_repeats[question])
        return (firsts[:, None] + np.arange(k)).ravel()

    def cell(self, row: int) -> tuple[ModelTask, int]:
        """The row's model and task columns, and the unit it is in them."""
        model, question = int(self.row_model[row]), int(self.row_question[row])
        task = self.tasks[int(self.question_task[question])]
        cell = self.data.cells[(self.models[model], task)]
        return cell, int(self.position[model, question]) * cell.k + int(self.row_repeat[row])

    def _columns(self) -> dict[str, np.ndarray]:
        size = len(self.row_question)
        columns = {name: np.full(size, NONE, dtype=np.int32) for name in ROW_COLUMNS}
        columns["row_question"], columns["row_model"] = self.row_question, self.row_model
        columns["row_repeat"] = self.row_repeat
        row_task = self.question_task[self.row_question]
        for m, model in enumerate(self.models):
            for t, task in enumerate(self.tasks):
                rows = np.nonzero((self.row_model == m) & (row_task == t))[0]
                if not len(rows):
                    continue
                cell = self.data.cells[(model, task)]
                at = self.position[m, self.row_question[rows]] * cell.k + self.row_repeat[rows]
                fixed, retry = cell.fixed, cell.retry
                final = cell.adaptive_status()[at]
                columns["row_fixed"][rows] = fixed.status[at]
                columns["row_final"][rows] = final
                columns["row_fixed_finish"][rows] = fixed.finish[at]
                columns["row_retry_finish"][rows] = retry.finish[at]
                columns["row_due"][rows] = fixed.due[at]
                columns["row_fixed_diagnosis"][rows] = diagnosis_column(
                    cell, fixed, at, self.diagnosed
                )
                columns["row_retry_diagnosis"][rows] = np.where(
                    cell.candidate[at], diagnosis_column(cell, retry, at, self.diagnosed), NONE
                )
                columns["row_fixed_code"][rows] = code_column(cell, fixed, at)
                columns["row_retry_code"][rows] = np.where(
                    cell.candidate[at], code_column(cell, retry, at), NONE
                )
                columns["row_scorers"][rows] = scorer_bits(cell, at, final != PENDING)
                retried = cell.candidate[at]
                # The judge reads finished replies only, so at most one of the two is judged.
                judged = fixed.judge[at]
                columns["row_judge"][rows] = np.where(
                    judged != NONE, judged, np.where(retried, retry.judge[at], NONE)
                )
                tokens = [fixed.completion[at], np.where(retried, retry.completion[at], NONE)]
                known = (tokens[0] >= 0) | (tokens[1] >= 0)
                columns["row_tokens"][rows] = np.where(
                    known, np.maximum(tokens[0], 0) + np.maximum(tokens[1], 0), NONE
                )
                latency = np.stack(
                    [fixed.latency[at], np.where(retried, retry.latency[at], np.nan)]
                )
                timed = ~np.isnan(latency).all(axis=0)
                total = np.nansum(latency, axis=0)
                columns["row_latency_ms"][rows] = np.where(timed, np.rint(total * 1000), NONE)
        return columns

    def count(self, column: str, codes: tuple[int, ...]) -> np.ndarray:
        """(models, questions): how many of each model's rows on a question (its repeats) have
        one of `codes` in `column`; 0 where a model was not asked."""
        table = np.zeros(self.first_row.shape, dtype=np.int32)
        hit = np.isin(self.columns[column], codes)
        np.add.at(table, (self.row_model[hit], self.row_question[hit]), 1)
        return table

    def outcomes(self, column: str) -> np.ndarray:
        """(models, questions) codes from a row column, of repeat 0 (a question's only row in a
        task asked once); -1 where a model was not asked."""
        table = np.full(self.first_row.shape, -1, dtype=np.int32)
        first = self.row_repeat == 0
        table[self.row_model[first], self.row_question[first]] = self.columns[column][first]
        return table

    def index(self, rows: np.ndarray | None = None) -> dict[str, Any]:
        """The `SampleIndex` fields for `rows` (all rows when None), as numpy columns.

        The questions are those the rows refer to, renumbered in order; `orjson` writes the
        columns directly (OPT_SERIALIZE_NUMPY) and `SampleIndex(**...)` takes them as lists.
        """
        if rows is None:
            rows = np.arange(len(self.row_question))
        questions, row_question = np.unique(self.row_question[rows], return_inverse=True)
        fields: dict[str, Any] = {
            "models": self.models,
            "tasks": self.tasks,
            "subjects": self.subjects,
            "statuses": list(STATUS_CODES),
            "finishes": self.data.finishes,
            "task_repeats": self.task_repeats,
            "judged": self.data.judged,
            "scorers": self.scorers,
            "diagnoses": list(DIAGNOSES),
            "question_id": [self.question_id[q] for q in questions],
            "question_task": self.question_task[questions],
            "question_subject": self.question_subject[questions],
            "question_gold": [self.question_gold[q] for q in questions],
            "code_reasons": list(REASONS) if any(map(is_code, self.data.cells.values())) else [],
        }
        for name in ROW_COLUMNS:
            fields[name] = self.columns[name][rows]
        fields["row_question"] = row_question.astype(np.int32)
        return fields

    def samples_file(self, run: RunData, task: str) -> SamplesFile:
        key = (id(run), task)
        found = self._samples_files.get(key)
        if found is None:
            found = SamplesFile(run.path, task)
            self.data.resources.callback(found.close)
            self._samples_files[key] = found
        return found

    def _asked(self, question: int) -> tuple[ModelTask, int]:
        """The first model's cell that asked the question, and the question's position there."""
        models = np.nonzero(self.position[:, question] >= 0)[0]
        task = self.tasks[int(self.question_task[question])]
        cell = self.data.cells[(self.models[int(models[0])], task)]
        return cell, int(self.position[models[0], question])

    def whole_gold(self, question: int) -> str:
        """The question's gold whole (`question_gold` holds a long one as the index shows it)."""
        cell, position = self._asked(question)
        return cell.samples.golds[position]

    def question_view(
        self, question: int, limits: Limits
    ) -> tuple[QuestionView, tuple[str, list[dict[str, str]]] | None]:
        """The question's prompt (the last user message) and its exemplars with their key."""
        cell, position = self._asked(question)
        offset = cell.samples.offsets[position]
        messages = list(self.samples_file(cell.run, cell.task).at(offset).messages)
        last_user = max(
            (i for i, m in enumerate(messages) if m.get("role") == "user"), default=None
        )
        if last_user is None:
            prompt, before = "", messages
        else:
            prompt, before = messages[last_user].get("content", ""), messages[:last_user]
        exemplars = None
        if before:
            shots = [{"role": m.get("role", ""), "content": m.get("content", "")} for m in before]
            key = hashlib.sha256(orjson.dumps(shots)).hexdigest()[:12]
            exemplars = (key, shots)
        view = QuestionView(
            prompt=shorten(prompt, limits.prompt), exemplars=exemplars and exemplars[0]
        )
        return view, exemplars

    def reply_views(self, row: int, limits: Limits) -> list[ReplyView]:
        """The row's counted replies (fixed, and the retry of a candidate) with their texts."""
        cell, unit = self.cell(row)
        golds, position = cell.samples.golds, unit // cell.k
        views = []
        for replies in (cell.fixed, cell.retry):
            ref = int(replies.ref[unit])
            if ref:
                attempt = cell.run.read(ref)
                spec = cell.run.record.task(cell.task).spec
                judged = golds.scored(position, attempt, spec)
                view = with_diagnosis(
                    _reply_view(attempt, judged.verdicts, limits), attempt,
                    golds.for_diagnosis(position), spec, self.diagnosed, (cell.run, ref),
                )  # fmt: skip
                view = with_code_failure(view)
                judge = _judge_view(cell, attempt.phase, unit, judged.strict)
                views.append(view if judge is None else msgspec.structs.replace(view, judge=judge))
        return views


def _judgement(verdict: Verdict | None) -> Judgement | None:
    return None if verdict is None else Judgement(verdict.status, verdict.answer, verdict.rule)


def _judge_view(
    cell: ModelTask, phase: Phase, unit: int, strict: Verdict | None
) -> Judgement | None:
    """The judge scorer's reading of a reply, its model id as the rule; None where it reads
    nothing (not a finished reply, or a run not judged); status `pending` until it has read."""
    replies = cell.replies(phase)
    code = int(replies.judge[unit])
    if code == NONE or strict is None:
        return None
    if code == JUDGE_MISSING:
        return Judgement("pending", None, None)
    by = cell.run.judge_models[int(replies.judge_by[unit])]
    if code == JUDGE_DIFFERS:
        status, answer = cell.judge_reads[(phase, unit)]
        return Judgement(status, answer, by)
    return Judgement(strict.status, strict.answer, by)


def _reply_view(attempt: Attempt, verdicts: dict[str, Verdict], limits: Limits) -> ReplyView:
    return ReplyView(
        phase=attempt.phase,
        budget=attempt.budget,
        max_tokens=attempt.max_tokens,
        finish_reason=attempt.finish_reason,
        completion_tokens=attempt.usage.completion_tokens,
        reasoning_tokens=attempt.usage.reasoning_tokens,
        latency_s=attempt.latency_s,
        ttft_s=attempt.ttft_s,
        error=attempt.error,
        strict=_judgement(verdicts.get(STRICT.name)),
        verdicts={
            name: Judgement(verdict.status, verdict.answer, verdict.rule)
            for name, verdict in verdicts.items()
            if name != STRICT.name
        },
        content=None if attempt.content is None else shorten(attempt.content, limits.content),
        tool_calls=None if attempt.calls is None else msgspec.json.encode(attempt.calls).decode(),
        reasoning=None
        if attempt.reasoning is None
        else shorten(attempt.reasoning, limits.reasoning),
        reasoning_chars=len(attempt.reasoning or ""),
        unparsed=attempt.unparsed if isinstance(attempt.unparsed, str) else None,
    )
