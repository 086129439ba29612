"""lm-evaluation-harness (`lm-eval`, its `local-chat-completions` model).

Adapter: `bench/adapters/lm-eval/bench_gsm8k.yaml`, a task over the local JSON Lines file with
the prompt's four exemplars as `fewshot_config.samples`, run with `--apply_chat_template
--fewshot_as_multiturn` so that it sends the same turns; `num_concurrent` is its requests in
flight.
"""

from __future__ import annotations

import json
from pathlib import Path

from thinkeval_bench.peers.base import Command, Context, Harness, Install, render_template
from thinkeval_bench.runenv import base_env
from thinkeval_bench.workload import MAX_TOKENS, MODEL

INSTALL = Install("python3.11", ("lm-eval[api]==0.4.13",), ("lm-eval",))


def exemplar_pairs(prompt_file: Path) -> list[dict[str, str]]:
    """The prompt's exemplars as (question, target) rows, for harnesses that rebuild the turns."""
    prompt = json.loads(prompt_file.read_text(encoding="utf-8"))
    head, _, tail = prompt["question_template"].partition("{question}")
    turns = prompt["exemplars"]
    pairs = []
    for user, assistant in zip(turns[::2], turns[1::2], strict=True):
        text = user["content"]
        if not (text.startswith(head) and text.endswith(tail)):
            raise ValueError(f"{prompt_file}: an exemplar does not follow the question template")
        pairs.append(
            {"question": text[len(head) : len(text) - len(tail)], "target": assistant["content"]}
        )
    return pairs


def command(ctx: Context) -> Command:
    """`lm-eval run --model local-chat-completions ...` over the rendered task."""
    tasks = ctx.workdir / "lm_eval_tasks"
    tasks.mkdir(exist_ok=True)
    render_template(
        "lm-eval/bench_gsm8k.yaml",
        tasks / "bench_gsm8k.yaml",
        {
            "DATA_FILE": json.dumps(str(ctx.data_file)),
            "FEWSHOT_SAMPLES": json.dumps(exemplar_pairs(ctx.prompt_file), ensure_ascii=False),
            "MAX_TOKENS": str(MAX_TOKENS),
        },
    )
    model_args = [
        f"model={MODEL}",
        f"base_url={ctx.base_url}/chat/completions",
        "tokenizer_backend=none",
        "tokenized_requests=False",
    ]
    if ctx.concurrency is not None:
        model_args.append(f"num_concurrent={ctx.concurrency}")
    argv = [
        str(ctx.python.parent / "lm-eval"),
        "run",
        "--model",
        "local-chat-completions",
        "--model_args",
        ",".join(model_args),
        "--tasks",
        "bench_gsm8k_4shot_chat",
        "--include_path",
        str(tasks),
        "--apply_chat_template",
        "--fewshot_as_multiturn",
        "--output_path",
        str(ctx.workdir / "results"),
        "--log_samples",
    ]
    env = base_env()
    env["OPENAI_API_KEY"] = "EMPTY"
    return argv, env


HARNESS = Harness("lm-eval", INSTALL, command)
