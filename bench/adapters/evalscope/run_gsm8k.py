"""EvalScope adapter for the benchmark: GSM8K from a local JSON Lines file, AISBench's 4-shot chat.

bench/run_bench.py (bench/thinkeval_bench/peers/evalscope.py) runs it with the `evalscope`
virtualenv's python::

    python run_gsm8k.py --base-url http://127.0.0.1:PORT/v1 --model sim-qwen3 \
        --data gsm8k/test.jsonl --prompt prompt.json --work-dir DIR [--concurrency 64]

It registers a benchmark `bench_gsm8k_chat`: EvalScope's own GSM8K adapter (answer extraction and
the numeric `acc` metric) with one change, the input: the 8 exemplar turns and the test question
as the last user message, the same messages thinkeval sends, instead of EvalScope's single-message
few-shot prompt. Without --concurrency, EvalScope's default `eval_batch_size` applies.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from evalscope import TaskConfig, run_task
from evalscope.api.benchmark import BenchmarkMeta
from evalscope.api.dataset import Sample
from evalscope.api.messages import ChatMessageAssistant, ChatMessageUser
from evalscope.api.registry import register_benchmark
from evalscope.benchmarks.gsm8k.gsm8k_adapter import GSM8KAdapter
from evalscope.constants import Tags

PROMPT: dict[str, Any] = {}


@register_benchmark(
    BenchmarkMeta(
        name="bench_gsm8k_chat",
        pretty_name="GSM8K (AISBench 4-shot chat)",
        dataset_id="bench_gsm8k_chat",
        tags=[Tags.MATH, Tags.REASONING],
        description="GSM8K test rows from a local file as AISBench's 4-shot chat prompt.",
        subset_list=["main"],
        few_shot_num=0,
        train_split=None,
        eval_split="test",
        metric_list=[{"acc": {"numeric": True}}],
    )
)
class BenchGSM8KAdapter(GSM8KAdapter):
    def load_from_disk(self, **kwargs: Any) -> Any:
        return super().load_from_disk(use_local_loader=True)

    def record_to_sample(self, record: dict[str, Any]) -> Sample:
        exemplars = [
            ChatMessageUser(content=m["content"])
            if m["role"] == "user"
            else ChatMessageAssistant(content=m["content"])
            for m in PROMPT["exemplars"]
        ]
        question = PROMPT["question_template"].replace("{question}", record["question"])
        gold = record["answer"].rpartition("####")[2].strip().replace(",", "")
        return Sample(input=[*exemplars, ChatMessageUser(content=question)], target=gold)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--max-tokens", type=int, default=2048)
    parser.add_argument("--concurrency", type=int)
    args = parser.parse_args()
    with open(args.prompt, encoding="utf-8") as handle:
        PROMPT.update(json.load(handle))
    config: dict[str, Any] = {
        "model": args.model,
        "api_url": args.base_url,
        "api_key": "EMPTY",
        "eval_type": "openai_api",
        "datasets": ["bench_gsm8k_chat"],
        "dataset_args": {"bench_gsm8k_chat": {"local_path": args.data}},
        "generation_config": {"max_tokens": args.max_tokens, "temperature": 0.0},
        "work_dir": args.work_dir,
    }
    if args.concurrency is not None:
        config["eval_batch_size"] = args.concurrency
    run_task(TaskConfig(**config))


if __name__ == "__main__":
    main()
