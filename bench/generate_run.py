#!/usr/bin/env python3
"""Write a large run directory directly, as `thinkeval run` would have left it, in seconds.

Two models on N GSM8K-style samples (config.json, samples/gsm8k.jsonl, one journal), every line
a valid attempt with its verdicts recorded: thinking-length reasoning (300-6,000 characters),
about 15% of the fixed replies cut off (unfinished or empty) and retried at B2, 12% wrong, 2%
without an answer, 1% transport errors. The replies are templated so that the scorers agree
with the recorded verdicts. Used by bench/report_scale.py; on its own::

    python bench/generate_run.py /tmp/scale --samples 100000
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import msgspec

from thinkeval.records import Attempt, Sample, Usage
from thinkeval.run.rundir import write_json, write_samples
from thinkeval.scoring import SCORER_VERSION, score

B1, B2 = 2048, 8192
MODELS = ("gen-bf16", "gen-w8a8")
EXEMPLARS = (
    {
        "role": "user",
        "content": "Question: There are 15 trees in the grove. After planting "
        "there are 21. How many were planted?\nLet's think step by step\nAnswer:",
    },
    {"role": "assistant", "content": "21 - 15 = 6.\nThe answer is 6\n"},
)
WORDS = (
    "let",
    "me",
    "check",
    "the",
    "numbers",
    "again",
    "so",
    "the",
    "total",
    "is",
    "first",
    "then",
    "we",
    "add",
    "subtract",
    "multiply",
    "divide",
    "carefully",
    "wait",
    "that",
    "does",
    "not",
    "look",
    "right",
    "hmm",
    "okay",
    "so",
    "each",
    "step",
    "gives",
)


def _reply_texts(gold: str) -> dict[str, tuple[str | None, str]]:
    """Content and finish reason per strict verdict, as a thinking model would answer."""
    return {
        "correct": (f"Adding the parts step by step gives {gold}.\nThe answer is {gold}", "stop"),
        "wrong": (
            f"Adding the parts step by step gives {int(gold) + 1}.\nThe answer is {int(gold) + 1}",
            "stop",
        ),
        "no_answer": ("I cannot decide this from the information given.", "stop"),
        "unfinished": ("Let me work through this carefully. First, I", "length"),
        "empty": (None, "length"),
    }


def _pick(rng: random.Random, fixed: bool) -> str:
    roll = rng.random()
    if fixed:
        for status, share in (
            ("error", 0.01),
            ("unfinished", 0.10),
            ("empty", 0.05),
            ("wrong", 0.12),
            ("no_answer", 0.02),
        ):
            if roll < share:
                return status
            roll -= share
        return "correct"
    return "correct" if roll < 0.6 else "wrong" if roll < 0.8 else "unfinished"


def generate_run(folder: Path, samples: int, seed: int = 0) -> Path:
    """Write a run of `samples` GSM8K-style samples and two models' journal (see docstring)."""
    rng = random.Random(seed)
    run = folder / f"scale-{samples}"
    shutil.rmtree(run, ignore_errors=True)
    models = [
        {"name": m, "base_url": "http://127.0.0.1:9/v1", "generation": {"temperature": 0.0}}
        for m in MODELS
    ]
    write_json(
        run / "config.json",
        {"run": run.name, "budgets": [B1, B2], "models": models, "tasks": [{"name": "gsm8k"}]},
    )
    golds = [str(rng.randrange(1, 1000)) for _ in range(samples)]
    write_samples(
        run,
        "gsm8k",
        (
            Sample(
                id=f"gsm8k/{i}",
                task="gsm8k",
                gold=golds[i],
                messages=(
                    *EXEMPLARS,
                    {
                        "role": "user",
                        "content": f"Question: A shop sold {i} apples and {golds[i]} pears "
                        f"in week {i % 52}. How many pears?\nLet's think step by step\nAnswer:",
                    },
                ),
            )
            for i in range(samples)
        ),
    )
    pool = " ".join(rng.choice(WORDS) for _ in range(200_000))
    encode = msgspec.json.Encoder().encode
    lenient = {
        s: score("gsm8k", c, f, "7", reasoning="", scorer="lenient").status
        for s, (c, f) in _reply_texts("7").items()
    }
    started = 1_750_000_000.0
    (run / "journal").mkdir(parents=True, exist_ok=True)
    with (run / "journal" / "main.jsonl").open("wb") as journal:
        for model in MODELS:
            lines = []
            for i in range(samples):
                for phase in ("fixed", "retry"):
                    status = _pick(rng, phase == "fixed")
                    start = rng.randrange(0, len(pool) - 8000)
                    reasoning = pool[start : start + rng.randrange(300, 6000)]
                    texts = _reply_texts(golds[i])
                    common: dict[str, Any] = {
                        "model": model,
                        "task": "gsm8k",
                        "sample_id": f"gsm8k/{i}",
                        "phase": phase,
                        "budget": B1 if phase == "fixed" else B2,
                        "max_tokens": B1 if phase == "fixed" else B2,
                        "started_at": started + i * 0.05,
                        "latency_s": rng.uniform(0.5, 40.0),
                    }
                    if status == "error":
                        attempt = Attempt(
                            **common,
                            error="HTTP 503: Service Unavailable",
                            error_kind="http",
                            http_status=503,
                            tries=11,
                        )
                    else:
                        content, finish = texts[status]
                        tokens = (
                            common["budget"] if finish == "length" else rng.randrange(200, 1900)
                        )
                        verdict = (
                            score("gsm8k", content, finish, golds[i])
                            if status == "correct"
                            else None
                        )
                        attempt = Attempt(
                            **common,
                            content=content,
                            reasoning=reasoning,
                            finish_reason=finish,
                            usage=Usage(
                                prompt_tokens=220,
                                completion_tokens=tokens,
                                reasoning_tokens=tokens - 40,
                            ),
                            http_status=200,
                            verdict=status,  # type: ignore[arg-type]
                            answer=verdict.answer if verdict else None,
                            lenient_verdict=lenient[status],  # type: ignore[arg-type]
                            gold=golds[i],
                            scorer_version=SCORER_VERSION,
                        )
                    lines.append(encode(attempt) + b"\n")
                    if len(lines) >= 10_000:  # written in batches: memory stays small
                        journal.write(b"".join(lines))
                        lines.clear()
                    if phase == "fixed" and status not in ("unfinished", "empty"):
                        break  # only cut-off replies are asked again
            journal.write(b"".join(lines))
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where to write scale-N/")
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(generate_run(args.folder, args.samples, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
