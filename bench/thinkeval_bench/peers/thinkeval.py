"""thinkeval itself: the checkout running the benchmark, from its snapshot; nothing to install.

Adapter: `bench/adapters/thinkeval/gsm8k.yaml`, a run config over the run's data dir; the c64
setting adds `concurrency: 64`, the default setting leaves the key out (64 too).
"""

from __future__ import annotations

import sys

from thinkeval_bench.peers.base import Command, Context, Harness, render_template
from thinkeval_bench.runenv import thinkeval_env
from thinkeval_bench.workload import MAX_TOKENS, MODEL


def command(ctx: Context) -> Command:
    """`python -m thinkeval run CONFIG --output RUN` with the snapshot on the path."""
    config = render_template(
        "thinkeval/gsm8k.yaml",
        ctx.workdir / "thinkeval.yaml",
        {
            "DATA_DIR": str(ctx.data_dir),
            "BASE_URL": ctx.base_url,
            "MODEL": MODEL,
            "BUDGET": str(MAX_TOKENS),
            "CONCURRENCY": "" if ctx.concurrency is None else f"    concurrency: {ctx.concurrency}",
        },
    )
    argv = [
        sys.executable,
        "-m",
        "thinkeval",
        "run",
        str(config),
        "--output",
        str(ctx.workdir / "run"),
    ]
    return argv, thinkeval_env()


HARNESS = Harness("thinkeval", None, command)
