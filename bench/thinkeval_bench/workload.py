"""The workload every harness gets: GSM8K rows, AISBench's 4-shot chat prompt, and synthetic
GSM8K-format rows for the memory scenario."""

from __future__ import annotations

import json
import os
import random
from importlib import resources
from pathlib import Path

from thinkeval_bench import REPO

MODEL = "sim-qwen3"
MAX_TOKENS = 2048  # thinkeval's default first budget; every harness asks for the same
CONCURRENCY = 64
# No sample is cut off or comes back empty, so thinkeval asks no adaptive retry and every harness
# sends exactly one request per sample; the rest of the simulator's behaviour is its default.
SIM_FLAGS: tuple[str, ...] = ("--p-long", "0", "--p-never", "0", "--p-empty", "0")
SIZES_100K: tuple[int, ...] = (10_000, 50_000, 100_000)
LONG_FACTOR = 4  # the 1 s scenario's longer thinkeval run: this many times --requests


def gsm8k_source(explicit: str | None) -> Path:
    """The real GSM8K test split: --data-dir, $THINKEVAL_DATA_DIR, or ../shared/datasets."""
    candidates = [
        explicit,
        os.environ.get("THINKEVAL_DATA_DIR"),
        str(REPO.parent / "shared" / "datasets"),
    ]
    for candidate in candidates:
        if candidate:
            path = Path(candidate).expanduser() / "gsm8k" / "test.jsonl"
            if path.is_file():
                return path.resolve()
    raise SystemExit(
        "error: GSM8K not found: pass --data-dir, set THINKEVAL_DATA_DIR, or put the datasets "
        f"in {REPO.parent / 'shared' / 'datasets'} (expects gsm8k/test.jsonl)"
    )


def write_first_rows(source: Path, target_dir: Path, n: int) -> Path:
    """`target_dir/gsm8k/test.jsonl` holding the first `n` rows of `source`."""
    rows = [line for line in source.read_text(encoding="utf-8").split("\n") if line.strip()]
    if len(rows) < n:
        raise SystemExit(f"error: {source} has {len(rows)} rows, fewer than --requests {n}")
    out = target_dir / "gsm8k" / "test.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(rows[:n]) + "\n", encoding="utf-8")
    return out


def write_prompt(target: Path) -> Path:
    """AISBench's GSM8K 4-shot chat prompt, exactly as thinkeval packages it, for the adapters."""
    text = resources.files("thinkeval.tasks").joinpath("aisbench_prompts.json").read_text("utf-8")
    prompt = json.loads(text)["gsm8k_4shot_cot_chat"]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps(
            {"exemplars": prompt["exemplars"], "question_template": prompt["question_template"]},
            ensure_ascii=False,
            indent=1,
        ),
        encoding="utf-8",
    )
    return target


def write_synthetic(target_dir: Path, n: int, seed: int) -> Path:
    """`target_dir/gsm8k/test.jsonl` with `n` synthetic GSM8K-format word problems (`question`,
    and an `answer` whose last line is `#### N` with the right N)."""
    rng = random.Random(seed)
    names = ("Ava", "Ben", "Chloe", "Dev", "Elif", "Farah", "Goro", "Hana", "Ivan", "Jun")
    things = ("apples", "marbles", "stickers", "books", "coins", "shells", "pencils", "cards")
    out = target_dir / "gsm8k" / "test.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for i in range(n):
            name, thing = rng.choice(names), rng.choice(things)
            a, b, c = rng.randint(5, 500), rng.randint(2, 40), rng.randint(2, 9)
            question = (
                f"{name} has {a} {thing}. {name} buys {b} bags with {c} {thing} in each bag, "
                f"then gives away {i % 7} {thing}. How many {thing} does {name} have now? "
                f"(problem {i})"
            )
            total = a + b * c - i % 7
            answer = (
                f"{name} buys {b} * {c} = <<{b}*{c}={b * c}>>{b * c} {thing}.\n"
                f"{name} then has {a} + {b * c} - {i % 7} = {total} {thing}.\n#### {total}"
            )
            handle.write(json.dumps({"question": question, "answer": answer}) + "\n")
    return out
