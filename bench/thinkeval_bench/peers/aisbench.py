"""AISBench (`ais_bench`).

Adapter: `bench/adapters/aisbench/gsm8k_bench.py`, its own `gsm8k_gen_4_shot_cot_chat_prompt`
dataset and `vllm_api_general_chat` model configs with the path, address, model id and
`max_out_len` changed; `batch_size` is its requests in flight.
"""

from __future__ import annotations

from thinkeval_bench.peers.base import Command, Context, Harness, Install, render_template
from thinkeval_bench.runenv import base_env
from thinkeval_bench.workload import MAX_TOKENS, MODEL

INSTALL = Install(
    "python3.11",
    # pip's picks break it: pyarrow 26 needs NumPy 2 (AISBench pins numpy<2), and mmengine
    # imports pkg_resources, which setuptools 81+ no longer has.
    ("ais-bench-benchmark==3.1.20260630", "pyarrow==21.0.0", "setuptools==80.9.0"),
    ("ais-bench-benchmark", "pyarrow", "setuptools"),
)


def command(ctx: Context) -> Command:
    """`ais_bench CONFIG --work-dir OUTPUTS`, its config rendered from the adapter."""
    # GSM8KDataset loads DIR/test.jsonl and DIR/train.jsonl; the 4-shot prompt has its exemplars
    # inline and never reads train, so train is a link to the same rows.
    data = ctx.workdir / "aisbench_gsm8k"
    data.mkdir(exist_ok=True)
    for split in ("test", "train"):
        link = data / f"{split}.jsonl"
        if not link.exists():
            link.symlink_to(ctx.data_file)
    config = render_template(
        "aisbench/gsm8k_bench.py",
        ctx.workdir / "aisbench_gsm8k_bench.py",
        {
            "DATA_DIR": str(data),
            "MODEL": MODEL,
            "PORT": str(ctx.port),
            "MAX_TOKENS": str(MAX_TOKENS),
            "BATCH_SIZE": "" if ctx.concurrency is None else str(ctx.concurrency),
        },
    )
    argv = [
        str(ctx.python.parent / "ais_bench"),
        str(config),
        "--work-dir",
        str(ctx.workdir / "outputs"),
    ]
    return argv, base_env()


HARNESS = Harness("aisbench", INSTALL, command)
