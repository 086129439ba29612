# AISBench config for the benchmark; bench/thinkeval_bench/peers/aisbench.py fills in the
# {{KEY}} strings.
# AISBench's own GSM8K 4-shot chain-of-thought chat prompt (the one thinkeval copies byte for byte)
# and its own vLLM chat model config, pointed at the simulator: only the address, the model id,
# max_out_len and, for the c64 run, batch_size (AISBench's requests in flight) change.
from mmengine.config import read_base

with read_base():
    from ais_bench.benchmark.configs.datasets.gsm8k.gsm8k_gen_4_shot_cot_chat_prompt import (
        gsm8k_datasets,
    )
    from ais_bench.benchmark.configs.models.vllm_api.vllm_api_general_chat import (
        models as chat_models,
    )
    from ais_bench.benchmark.configs.summarizers.example import summarizer  # noqa: F401

BATCH_SIZE = "{{BATCH_SIZE}}"  # empty: the model config's own batch_size

# GSM8KDataset reads DATA_DIR/test.jsonl (the benchmark's rows) and DATA_DIR/train.jsonl.
datasets = [dict(gsm8k_datasets[0], path="{{DATA_DIR}}")]
models = [
    dict(
        chat_models[0],
        abbr="sim",
        model="{{MODEL}}",
        host_ip="127.0.0.1",
        host_port=int("{{PORT}}"),
        max_out_len=int("{{MAX_TOKENS}}"),
        **({"batch_size": int(BATCH_SIZE)} if BATCH_SIZE else {}),
    )
]
