"""`thinkeval judge RUN_DIR`: ask a judge model for the final answer of every finished reply.

The judge is any OpenAI-compatible endpoint, configured like a model (base URL, model id, API key
from an environment variable). Each counted reply whose state is `finished` (empty and cut-off
replies have no final answer to read) is shown to the judge with the question, under a versioned
prompt (`scoring/judge.py`); its JSON answer becomes a verdict under the scorer name `judge`,
appended to `verdicts/judge.jsonl` as soon as it arrives. Like a run, it resumes: replies already
judged by this judge model under this prompt are not asked again, failed ones are, and a torn
last line is cut. The journal and the strict numbers are never touched.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.endpoint import RequestFailed
from thinkeval.config import ModelConfig
from thinkeval.errors import ConfigError, JournalError, ServerError
from thinkeval.records import Attempt
from thinkeval.results.judge import (
    Agreement,
    Judged,
    JudgeRecord,
    content_sha,
    counted_replies,
    judge_agreement,
    read_verdicts,
    verdict_for,
)
from thinkeval.run.identity import identify, unreachable
from thinkeval.scoring.judge import (
    PROMPT_VERSION,
    JudgeReplyError,
    judge_prompt,
    judge_verdict,
    parse_judge_reply,
)
from thinkeval.scoring.state import reply_state
from thinkeval.store.journal import Journal
from thinkeval.store.rundir import judge_path
from thinkeval.urls import redact_url

# Extraction is not creative: the judge answers greedily.
_GENERATION: dict[str, Any] = {"temperature": 0.0}


def judge_model_config(
    base_url: str,
    model: str,
    api_key_env: str | None = None,
    concurrency: int = 16,
    timeout_s: float = 600.0,
    max_retries: int = 10,
    unreachable_after_s: float = 60.0,
) -> ModelConfig:
    """The judge as a model config (retries, backoff and API key handling as for any model)."""
    config = ModelConfig(
        name="judge",
        base_url=base_url,
        model=model,
        api_key_env=api_key_env,
        concurrency=concurrency,
        timeout_s=timeout_s,
        max_retries=max_retries,
        unreachable_after_s=unreachable_after_s,
        generation=dict(_GENERATION),
    )
    problems = [message for _, message in config.problems()]
    if concurrency < 1 or max_retries < 0 or timeout_s <= 0 or unreachable_after_s <= 0:
        problems.append(
            "--concurrency must be at least 1, --max-retries at least 0, --timeout-s and "
            "--unreachable-after-s positive"
        )
    if problems:
        raise ConfigError(f"judge: {'; '.join(problems)}")
    config.api_key()  # a missing key is reported before anything is asked
    return config


@dataclass
class JudgeRun:
    """What one `thinkeval judge` did, and where strict and the judge stand now."""

    run_dir: Path
    judge_model: str
    asked: int = 0
    recorded: int = 0
    failed: int = 0
    already: int = 0  # judged before, not asked again
    errors: list[str] = field(default_factory=list)  # a few failure messages
    agreement: dict[tuple[str, str], Agreement] = field(default_factory=dict)


class _VerdictLog(Journal):
    """verdicts/judge.jsonl: the journal's durable appends, lock and torn-tail repair."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(run_dir)
        self.path = judge_path(run_dir)

    def open(self) -> None:
        try:
            super().open()
        except JournalError as exc:
            if "another thinkeval process" in str(exc):
                raise JournalError(
                    f"{self.path}: another `thinkeval judge` is judging this run; wait for it"
                ) from None
            raise

    def write(self, record: JudgeRecord) -> None:
        """Append one verdict line; when this returns, it is recorded."""
        assert self._fd is not None
        line = record_line(record)
        written = os.write(self._fd, line)
        while written < len(line):
            written += os.write(self._fd, line[written:])


def record_line(record: JudgeRecord) -> bytes:
    return msgspec.json.encode(record) + b"\n"


@dataclass(frozen=True)
class _Job:
    reply: Judged
    sha: str
    prompt: str


def _job(reply: Judged) -> _Job:
    attempt: Attempt = reply.attempt
    visible = reply_state(attempt.content, attempt.finish_reason).visible
    question = str(reply.sample.messages[-1].get("content", ""))
    spec = reply.spec
    return _Job(reply, content_sha(attempt.content), judge_prompt(spec.answer, question, visible))


async def _ask(
    dispatcher: Dispatcher, config: ModelConfig, job: _Job, max_tokens: int
) -> JudgeRecord:
    reply = job.reply
    body = {
        "model": config.served_model,
        "messages": [{"role": "user", "content": job.prompt}],
        "max_tokens": max_tokens,
        **config.generation_settings.as_dict(),
    }
    outcome = await dispatcher.chat(body)
    common: dict[str, Any] = {
        "model": reply.model,
        "task": reply.task,
        "sample_id": reply.sample.id,
        "repeat": reply.repeat,
        "phase": reply.phase,
        "content_sha": job.sha,
        "prompt_version": PROMPT_VERSION,
        "judge_model": config.served_model,
        "gold": reply.sample.gold,
        "judged_at": time.time(),
    }
    if outcome.timed is None:
        return JudgeRecord(**common, error=str(outcome.failure))
    answered = outcome.timed.reply
    common["served_model"] = answered.served_model
    try:
        answer = parse_judge_reply(answered.content)
    except JudgeReplyError as exc:
        cut = " (cut by --max-tokens)" if answered.finish_reason == "length" else ""
        return JudgeRecord(**common, reply=answered.content, error=f"{exc}{cut}")
    verdict = judge_verdict(reply.spec.answer, answer, reply.sample.gold)
    return JudgeRecord(
        **common, status=verdict.status, answer=verdict.answer, reply=answered.content
    )


async def _judge_all(
    run_dir: Path,
    config: ModelConfig,
    max_tokens: int,
    found: JudgeRun,
    progress: Callable[[JudgeRun], None] | None,
) -> None:
    queue: asyncio.Queue[_Job | None] = asyncio.Queue(maxsize=2 * config.concurrency)
    log = _VerdictLog(run_dir)
    log.open()  # locked, torn tail cut: read what is recorded only now
    try:
        done = read_verdicts(run_dir)
        async with Dispatcher(config) as dispatcher:
            await _check_judge_served(dispatcher, config)

            async def worker() -> None:
                while (job := await queue.get()) is not None:
                    record = await _ask(dispatcher, config, job, max_tokens)
                    log.write(record)
                    found.asked += 1
                    if record.error is None:
                        found.recorded += 1
                    else:
                        found.failed += 1
                        if len(found.errors) < 5:
                            found.errors.append(f"{record.sample_id}: {record.error}")
                    if progress is not None:
                        progress(found)

            async def feed() -> None:
                for reply in counted_replies(run_dir):
                    if not reply.finished:
                        continue
                    sha = content_sha(reply.attempt.content)
                    if verdict_for(done, reply.key, sha, config.served_model) is not None:
                        found.already += 1
                        continue
                    await queue.put(_job(reply))
                for _ in workers:
                    await queue.put(None)
                await asyncio.gather(*workers)

            workers = [asyncio.create_task(worker()) for _ in range(config.concurrency)]
            feeding = asyncio.create_task(feed())
            gone = asyncio.create_task(dispatcher.health.gone.wait())
            try:
                await asyncio.wait({feeding, gone}, return_when=asyncio.FIRST_COMPLETED)
                if not feeding.done():
                    raise _judge_gone(dispatcher, found)
                feeding.result()
            finally:
                for task in (*workers, feeding, gone):
                    task.cancel()
    finally:
        log.close()


async def _check_judge_served(dispatcher: Dispatcher, config: ModelConfig) -> None:
    """Up front, as a run does: the judge server answers and serves the judge model."""
    try:
        endpoint, cards = await dispatcher.models()
    except RequestFailed as exc:
        raise unreachable(config.base_urls, "judge", exc) from None
    card, ids = identify(cards, config.served_model)
    if card is None:
        raise ServerError(
            f"the judge server {redact_url(endpoint.base_url)} serves "
            f"{', '.join(ids) or 'no model'}, not {config.served_model!r}: pass one of those "
            "with --model. Nothing was asked"
        )


def _judge_gone(dispatcher: Dispatcher, found: JudgeRun) -> ServerError:
    outage = dispatcher.health.outage
    why = f" ({outage.last_error})" if outage is not None else ""
    return ServerError(
        f"the judge server stopped answering{why}; the {found.recorded} verdicts received are "
        "recorded: run the same command again when it is back, to ask only the rest"
    )


def judge_run(
    run_dir: Path,
    config: ModelConfig,
    max_tokens: int = 2048,
    progress: Callable[[JudgeRun], None] | None = None,
) -> JudgeRun:
    """Judge every finished reply of `run_dir` not yet judged by this judge; return the counts
    and the strict-vs-judge agreement per model and task."""
    if not (run_dir / "config.json").is_file():
        raise ConfigError(f"{run_dir}: not a thinkeval run directory (no config.json)")
    found = JudgeRun(run_dir, config.served_model)
    asyncio.run(_judge_all(run_dir, config, max_tokens, found, progress))
    found.agreement = judge_agreement(run_dir)
    return found
