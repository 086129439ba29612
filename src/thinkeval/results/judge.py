"""The judge scorer's results: its verdicts beside the journal, agreement with strict, accuracy.

`thinkeval judge` (ops/judge.py) stores one line per judged reply in `verdicts/judge.jsonl`,
append-only. A verdict belongs to the reply it judged by the SHA-256 of its content, to the prompt
version and to the judge model, so it is never applied to another reply or reused after the
prompt changed. This module reads them back for the summary, the report and the agreement table;
it never calls a model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from thinkeval.errors import JournalError
from thinkeval.records import Attempt, Phase, Record, Sample, Status, describe_decode_error
from thinkeval.results.folds import CountedReply
from thinkeval.scoring.judge import PROMPT_VERSION
from thinkeval.store.counted import Journals, count_journal, index_samples, recorded
from thinkeval.store.protocol_rules import Outcome, attempt_state
from thinkeval.store.run_record import read_run_record
from thinkeval.store.rundir import SamplesFile, judge_path, recorded_tasks
from thinkeval.tasks.spec import TaskSpec


class JudgeRecord(Record, kw_only=True, forbid_unknown_fields=True):
    """One judged reply (one line of verdicts/judge.jsonl); `error` is set when the judge could
    not be asked or did not answer with the JSON asked for (asked again next time)."""

    model: str
    task: str
    sample_id: str
    repeat: int = 0
    phase: Phase
    content_sha: str  # SHA-256 of the judged reply's content
    prompt_version: str
    judge_model: str  # the judge's model id as configured
    served_model: str | None = None  # the id the judge's server answered with
    gold: str
    status: Status | None = None
    answer: str | None = None
    reply: str | None = None  # the judge's raw answer, for auditing
    error: str | None = None
    judged_at: float = 0.0


_DECODE = msgspec.json.Decoder(JudgeRecord)
Key = tuple[str, str, str, int, str]  # model, task, sample id, repeat, phase


def content_sha(content: str | None) -> str:
    return hashlib.sha256((content or "").encode()).hexdigest()


def read_verdicts(run_dir: Path) -> dict[Key, list[JudgeRecord]]:
    """The successful judge verdicts of the current prompt, by reply; a torn last line (a judge
    stopped mid-write) is skipped, any other bad line is an error naming file and line."""
    path = judge_path(run_dir)
    out: dict[Key, list[JudgeRecord]] = {}
    if not path.is_file():
        return out
    data = path.read_bytes()
    lines = data.split(b"\n")
    if not data.endswith(b"\n"):
        lines = lines[:-1]  # torn tail: cut by the next `thinkeval judge`
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = _DECODE.decode(line)
        except msgspec.DecodeError as exc:
            raise JournalError(
                f"{path}:{number}: not a judge verdict ({describe_decode_error(exc)}); move the "
                "file aside or fix that line"
            ) from None
        if record.error is None and record.prompt_version == PROMPT_VERSION:
            key = (record.model, record.task, record.sample_id, record.repeat, record.phase)
            out.setdefault(key, []).append(record)
    return out


def verdict_for(
    verdicts: dict[Key, list[JudgeRecord]], key: Key, sha: str, judge_model: str | None = None
) -> JudgeRecord | None:
    """The latest verdict on this very reply (by any judge model, unless one is named)."""
    for record in reversed(verdicts.get(key, ())):
        if record.content_sha == sha and judge_model in (None, record.judge_model):
            return record
    return None


@dataclass(frozen=True)
class Judged:
    """One counted reply of one (sample, repeat) and phase, as the judge sees it."""

    model: str
    task: str
    sample: Sample
    repeat: int
    phase: Phase
    attempt: Attempt
    finished: bool  # only finished replies are judged
    adaptive: bool  # this reply is the (sample, repeat)'s adaptive outcome
    spec: TaskSpec  # the task's, from the run's catalogue

    @property
    def key(self) -> Key:
        return (self.model, self.task, self.sample.id, self.repeat, self.phase)


def counted_replies(run_dir: Path) -> Iterator[Judged]:
    """Every counted successful attempt of the run (fixed, and retry where one was due)."""
    record = read_run_record(run_dir)
    started = recorded_tasks(run_dir)
    tasks = [task for task in record.task_names if task in started]
    repeats = {task: record.task(task).repeats for task in tasks}
    indexes = index_samples(run_dir, repeats)
    with Journals(run_dir) as journals:
        counted = count_journal(journals, indexes)
        for task in tasks:
            spec = record.task(task).spec
            if spec.answer.judges_tool_calls:
                continue  # a judge model reads text; tool calls are BFCL's checker's alone
            with SamplesFile(run_dir, task) as samples:
                for _, sample in samples:
                    slot = indexes[task].slot(sample.id)
                    assert slot is not None
                    for model in record.model_names:
                        entry = counted.get((model, task))
                        for repeat in range(repeats[task]):
                            unit = slot * repeats[task] + repeat
                            if entry is None or not recorded(entry.fixed[unit]):
                                continue
                            fixed = journals.read(entry.fixed[unit])
                            state = attempt_state(fixed, spec, sample.gold)
                            retry_ref = entry.retry_ref(unit) if state != "finished" else 0
                            retry = journals.read(retry_ref) if recorded(retry_ref) else None
                            finished = state == "finished"
                            yield Judged(
                                model,
                                task,
                                sample,
                                repeat,
                                "fixed",
                                fixed,
                                finished,
                                finished,
                                spec,
                            )
                            if retry is not None:
                                finished = attempt_state(retry, spec, sample.gold) == "finished"
                                yield Judged(
                                    model,
                                    task,
                                    sample,
                                    repeat,
                                    "retry",
                                    retry,
                                    finished,
                                    True,
                                    spec,
                                )


@dataclass(frozen=True)
class Disagreement:
    """A reply strict and the judge read differently."""

    sample_id: str
    repeat: int
    phase: Phase
    strict_status: str
    strict_answer: str | None
    judge_status: str
    judge_answer: str | None


@dataclass
class Agreement:
    """Strict vs judge on the finished replies of one model and task."""

    model: str
    task: str
    agreed: int = 0
    not_judged: int = 0  # finished replies without a judge verdict yet
    disagreements: list[Disagreement] = field(default_factory=list)
    # Accuracy under each scorer, over the (sample, repeat) units: the adaptive outcome's.
    units: int = 0
    strict_correct: int = 0
    judge_correct: int = 0
    judge_fixed_correct: int = 0

    @property
    def judged(self) -> int:
        return self.agreed + len(self.disagreements)

    @property
    def disagreeing_ids(self) -> list[str]:
        """The sample ids with a disagreement, in run order, each once."""
        return list(dict.fromkeys(d.sample_id for d in self.disagreements))


def verdict_on(verdicts: dict[Key, list[JudgeRecord]], reply: CountedReply) -> JudgeRecord | None:
    """The judge's latest verdict on this very counted reply, if it is finished and judged."""
    if reply.state != "finished":
        return None
    attempt = reply.attempt
    key: Key = (attempt.model, attempt.task, attempt.sample_id, attempt.repeat, attempt.phase)
    return verdict_for(verdicts, key, content_sha(attempt.content))


def reads_alike(verdict: JudgeRecord, strict: Outcome) -> bool:
    """The judge read the reply as strict did: same status, same answer."""
    return verdict.status == strict.status and verdict.answer == strict.answer


class AgreementFold:
    """Strict vs the judge, folded one counted reply at a time in the counting pass: `add`
    each reply that counts, `discard` a task counted again, then `found`."""

    def __init__(self, verdicts: dict[Key, list[JudgeRecord]]) -> None:
        self.verdicts = verdicts
        self.found: dict[tuple[str, str], Agreement] = {}

    def add(self, reply: CountedReply) -> None:
        self.judged(reply, verdict_on(self.verdicts, reply))

    def judged(self, reply: CountedReply, verdict: JudgeRecord | None) -> None:
        """Count `reply` with the judge's `verdict` on it (`verdict_on`)."""
        attempt, strict = reply.attempt, reply.outcome
        where = (attempt.model, attempt.task)
        agreement = self.found.get(where)
        if agreement is None:
            agreement = self.found[where] = Agreement(*where)
        finished = reply.state == "finished"
        if finished and verdict is None:
            agreement.not_judged += 1
        elif verdict is not None and reads_alike(verdict, strict):
            agreement.agreed += 1
        elif verdict is not None:
            read = (strict.status, strict.answer, str(verdict.status), verdict.answer)
            agreement.disagreements.append(
                Disagreement(attempt.sample_id, attempt.repeat, attempt.phase, *read)
            )
        judged_correct = verdict is not None and verdict.status == "correct"
        if attempt.phase == "fixed":
            agreement.judge_fixed_correct += judged_correct
        if attempt.phase == "retry" or finished:  # the unit's adaptive outcome
            agreement.units += 1
            agreement.strict_correct += strict.status == "correct"
            agreement.judge_correct += judged_correct

    def discard(self, task: str) -> None:
        for where in [where for where in self.found if where[1] == task]:
            del self.found[where]


def judge_agreement(run_dir: Path | str) -> dict[tuple[str, str], Agreement]:
    """Per (model, task): how often strict and the judge agree on finished replies, which
    samples they disagree on, and the adaptive accuracy under each scorer. For reports.

    A reply that is empty or unfinished is never judged and counts as not correct for both.
    Folded in a counting pass of its own; the summary and the report fold `AgreementFold` in
    theirs.
    """
    from thinkeval.results.tally import tally

    run_dir = Path(run_dir)  # a notebook passes "runs/x"
    record = read_run_record(run_dir)
    started = recorded_tasks(run_dir)
    tasks = [task for task in record.task_names if task in started]
    folded = AgreementFold(read_verdicts(run_dir))
    tally(run_dir, record, record.model_names, tasks, folds=folded)
    return folded.found
