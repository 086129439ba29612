"""A run and then its summary: what `thinkeval run`, the demo and the Python API call.

The executor (`run/`) only asks and records; writing `summary.json` is its caller's step, taken
here once the models have ended, also when a signal stopped them or some failed, so the summary
always says what is recorded.
"""

from __future__ import annotations

from pathlib import Path

from thinkeval.config import RunConfig
from thinkeval.errors import ThinkevalError
from thinkeval.results.summary import Summary, write_summary
from thinkeval.run.cleanup import discard_unstarted, missing_dirs
from thinkeval.run.progress import Progress
from thinkeval.run.runner import RunOptions, run_evaluation


class Interrupted(ThinkevalError):
    """The run was stopped by a signal; everything finished so far is recorded."""

    exit_code = 130


class ModelsFailed(ThinkevalError):
    """Some models stopped on a server failure while the others went on; `summary` holds what
    every model recorded."""

    def __init__(self, failures: dict[str, ThinkevalError], summary: Summary | None = None):
        self.failures = failures
        self.summary = summary
        self.exit_code = max(error.exit_code for error in failures.values())
        super().__init__("; ".join(f"model {name!r}: {error}" for name, error in failures.items()))


async def evaluate(
    config: RunConfig,
    run_dir: Path,
    options: RunOptions | None = None,
    progress: Progress | None = None,
) -> Summary:
    """Run (or resume) the config into `run_dir`, then write and return `summary.json`.

    A start that fails before any reply is recorded (bad input, no server, an internal error,
    Ctrl-C) removes the directory it created (`run.cleanup`): nothing to resume is left.
    """
    created = missing_dirs(run_dir)
    progress = progress or Progress()
    options = options or RunOptions()
    try:
        if config.decide is not None:
            # Imported only here: its statistics load numpy, which would otherwise sit in
            # memory for the whole run of every config (11 MiB of peak RSS).
            from thinkeval.ops.decide import with_gate

            options = with_gate(config, run_dir, options, progress)
        outcome = await run_evaluation(config, run_dir, options, progress)
        summary = write_summary(run_dir)
    except BaseException:
        discard_unstarted(run_dir, created)
        raise
    if outcome.failures and discard_unstarted(run_dir, created):
        raise ModelsFailed(outcome.failures)  # nothing was asked: no summary to show
    if outcome.stopped:
        raise Interrupted(
            f"stopped; everything finished so far is recorded in {run_dir}. "
            "Run the same command again to resume."
        )
    if outcome.failures:
        raise ModelsFailed(outcome.failures, summary)
    return summary
