"""The Python API: what a notebook or a script calls.

>>> import thinkeval
>>> thinkeval.score("gsm8k", "So she has 18 eggs.\\nThe answer is 18", "stop", gold="18").status
'correct'

`evaluate` runs an evaluation (from a config, or from the arguments `thinkeval run` takes as
flags) and returns its results; `load_run` reads any run directory (docs/python-api.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict, Unpack

from thinkeval.errors import ArgumentError
from thinkeval.records import ToolCall, Verdict
from thinkeval.scoring.scorers import ReplyText, get_scorer, verdict_of
from thinkeval.tasks.registry import find_task, task_names
from thinkeval.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from rich.console import Console

    from thinkeval.config import RunConfig
    from thinkeval.results.loaded import RunResults

    ConfigLike: TypeAlias = RunConfig | Mapping[str, Any] | str | Path


# What OpenAI-compatible servers send as a choice's finish_reason (None: a server that leaves it
# out); vLLM's stop/length/tool_calls/abort/repetition, and OpenAI's content_filter/function_call.
FINISH_REASONS = (
    "stop", "length", "tool_calls", "abort", "repetition", "content_filter", "function_call", None,
)  # fmt: skip


def score(
    task: str | TaskSpec,
    content: str | None,
    finish_reason: str | None,
    gold: str,
    reasoning: str | None = None,
    scorer: str = "strict",
    tool_calls: list[ToolCall] | None = None,
    unparsed: bool = False,
) -> Verdict:
    """Score one reply to a `task` sample (a built-in task's name, or the spec of a task of your
    own, e.g. from `tasks.user.load_task_file`) against its `gold` answer with `scorer`;
    `tool_calls` are the reply's parsed calls (a tool-calling task's answer, `bfcl`);
    `unparsed`: the server answered that the model's finished output does not parse in its
    format (llama.cpp's HTTP 500), so there is no text: `no_answer`, rule `server-unparsed`.

    Raises `thinkeval.ArgumentError` (a ValueError) for an unknown task or scorer or a
    finish_reason no server sends; never for the reply's text.

    >>> score("gsm8k", "She pays 5*3=15 dollars.", "stop", "15")
    Verdict(status='correct', answer='15', rule='last-sentence-number')
    >>> score("gsm8k", "The answer is 15", "length", "15").status
    'unfinished'
    >>> score("gsm8k", "The answer is 15", "length", "15", scorer="lenient").status
    'correct'
    """
    if finish_reason not in FINISH_REASONS:
        raise ArgumentError(
            f"finish_reason {finish_reason!r} is not one a server sends: expected one of "
            f"{', '.join(map(repr, FINISH_REASONS))}"
        )
    spec = find_task(task) if isinstance(task, str) else task
    if spec is None:
        raise ArgumentError(f"unknown task {task!r}: expected one of {', '.join(task_names())}")
    try:
        chosen = get_scorer(scorer)
    except ValueError as error:
        raise ArgumentError(str(error)) from None
    reply = ReplyText(content, reasoning, finish_reason, tool_calls=tool_calls, unparsed=unparsed)
    return verdict_of(chosen, spec, reply, gold)


class RunSettings(TypedDict, total=False):
    """The keywords of `evaluate`: the flags of `thinkeval run`."""

    base_url: str
    model: str
    tasks: str | Iterable[str]
    limit: int
    budgets: tuple[int, int]
    concurrency: int
    generation: Mapping[str, Any]
    api_key_env: str
    name: str
    retry: Literal["reask", "continue"]
    output: str | Path
    data_dir: str | Path
    shard: str  # "I/N", or "auto" (from Slurm's or Kubernetes' environment)
    allow_model_mismatch: bool
    keep_recorded_samples: bool
    unsafe_local_exec: bool  # run model code without the sandbox: only when you mean it
    allow_mixed_fleet: bool
    console: Console


def evaluate(config: ConfigLike | None = None, **settings: Unpack[RunSettings]) -> RunResults:
    """Run (or resume) an evaluation and return its results, as `thinkeval run` does.

    Give either `config` (a `RunConfig`, a mapping in the YAML layout, or a YAML file's path)
    or the keywords that mirror the flags (`base_url` defaults to `OPENAI_BASE_URL`, `model`
    to the only model the server lists, `tasks` to the default suite); `output`, `data_dir`,
    `shard`, `allow_model_mismatch`, `allow_mixed_fleet`, `keep_recorded_samples`,
    `unsafe_local_exec` and `console` go with either. It resolves the run as `thinkeval run`
    does (`ops.run_request`): a config file inside a run directory resumes that run. Errors are
    `thinkeval.ThinkevalError`s with one-line messages. In a notebook, whose event loop is
    already running, `await evaluate_async(...)` instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            "an event loop is already running here (a notebook?): use "
            "`await thinkeval.evaluate_async(...)` with the same arguments"
        )
    return asyncio.run(evaluate_async(config, **settings))


async def evaluate_async(
    config: ConfigLike | None = None, **settings: Unpack[RunSettings]
) -> RunResults:
    """`evaluate`, as a coroutine: `results = await thinkeval.evaluate_async(...)`."""
    from thinkeval.execution.grading import allow_unsafe_exec
    from thinkeval.ops.evaluate import evaluate
    from thinkeval.ops.run_request import RunRequest, resolve
    from thinkeval.results.loaded import load_run
    from thinkeval.run.from_flags import RunFlags
    from thinkeval.run.selection import split_list
    from thinkeval.ui.progress import RunProgress

    tasks = settings.get("tasks")
    budgets = settings.get("budgets")
    data_dir = settings.get("data_dir")
    flags = RunFlags(
        base_url=settings.get("base_url"),
        model=settings.get("model"),
        tasks=split_list([tasks] if isinstance(tasks, str) else tasks, "tasks="),
        limit=settings.get("limit"),
        budgets=(budgets[0], budgets[1]) if budgets is not None else None,
        concurrency=settings.get("concurrency"),
        generation=dict(settings.get("generation") or {}),
        api_key_env=settings.get("api_key_env"),
        name=settings.get("name"),
        data_dir=str(data_dir) if data_dir is not None else None,
        retry=settings.get("retry"),
    )
    request = RunRequest(
        config=config,
        flags=flags,
        output=settings.get("output"),
        shard=settings.get("shard"),
        allow_model_mismatch=settings.get("allow_model_mismatch", False),
        allow_mixed_fleet=settings.get("allow_mixed_fleet", False),
        keep_recorded_samples=settings.get("keep_recorded_samples", False),
        unsafe_local_exec=settings.get("unsafe_local_exec", False),
        origin="thinkeval.evaluate()",
    )
    if request.unsafe_local_exec:
        allow_unsafe_exec()
    resolved = await resolve(request)
    await evaluate(
        resolved.config, resolved.run_dir, resolved.options, RunProgress(settings.get("console"))
    )
    return load_run(resolved.run_dir)
