"""EvalScope.

Adapter: `bench/adapters/evalscope/run_gsm8k.py`, run with the harness's interpreter: it
registers a benchmark that is EvalScope's own GSM8K adapter with the chat messages as input,
reading the local file, `eval_type=openai_api`; `eval_batch_size` is its requests in flight.
"""

from __future__ import annotations

from thinkeval_bench import ADAPTERS
from thinkeval_bench.peers.base import Command, Context, Harness, Install
from thinkeval_bench.runenv import base_env
from thinkeval_bench.workload import MAX_TOKENS, MODEL

INSTALL = Install("python3.11", ("evalscope==1.14.1",), ("evalscope",))


def command(ctx: Context) -> Command:
    """`python run_gsm8k.py --base-url ... --data ... --prompt ...` in EvalScope's virtualenv."""
    argv = [
        str(ctx.python),
        str(ADAPTERS / "evalscope" / "run_gsm8k.py"),
        "--base-url",
        ctx.base_url,
        "--model",
        MODEL,
        "--data",
        str(ctx.data_file),
        "--prompt",
        str(ctx.prompt_file),
        "--work-dir",
        str(ctx.workdir / "outputs"),
        "--max-tokens",
        str(MAX_TOKENS),
    ]
    if ctx.concurrency is not None:
        argv += ["--concurrency", str(ctx.concurrency)]
    env = base_env()
    env["MODELSCOPE_CACHE"] = str(ctx.workdir / "modelscope-cache")
    return argv, env


HARNESS = Harness("evalscope", INSTALL, command)
