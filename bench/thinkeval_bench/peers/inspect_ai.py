"""inspect_ai (`inspect eval`).

Adapter: `bench/adapters/inspect/gsm8k_bench.py`, a task over `json_dataset` whose samples are
the chat messages, against model `openai-api/sim/<model>`; `--max-connections` is its requests
in flight (unset, it adapts its own limit).
"""

from __future__ import annotations

from thinkeval_bench import ADAPTERS
from thinkeval_bench.peers.base import Command, Context, Harness, Install
from thinkeval_bench.runenv import base_env
from thinkeval_bench.workload import MAX_TOKENS, MODEL

INSTALL = Install("python3.11", ("inspect-ai==0.3.285", "openai==3.57.0"), ("inspect-ai", "openai"))


def command(ctx: Context) -> Command:
    """`inspect eval gsm8k_bench.py --model openai-api/sim/MODEL ...`; the task reads the data,
    the prompt and the address from the environment."""
    # inspect resolves task files relative to the working directory.
    task_file = ctx.workdir / "gsm8k_bench.py"
    task_file.write_bytes((ADAPTERS / "inspect" / "gsm8k_bench.py").read_bytes())
    argv = [
        str(ctx.python.parent / "inspect"),
        "eval",
        task_file.name,
        "--model",
        f"openai-api/sim/{MODEL}",
        "--max-tokens",
        str(MAX_TOKENS),
        "--temperature",
        "0",
        "--log-dir",
        str(ctx.workdir / "logs"),
        # Its default full-screen display needs a terminal; the bench has none.
        "--display",
        "plain",
    ]
    if ctx.concurrency is not None:
        argv += ["--max-connections", str(ctx.concurrency)]
    env = base_env()
    env.update(
        {
            "SIM_BASE_URL": ctx.base_url,
            "SIM_API_KEY": "EMPTY",
            "BENCH_DATA": str(ctx.data_file),
            "BENCH_PROMPT": str(ctx.prompt_file),
            "INSPECT_LOG_DIR": str(ctx.workdir / "logs"),
        }
    )
    return argv, env


HARNESS = Harness("inspect", INSTALL, command)
