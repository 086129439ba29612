"""Write tests/data/aisbench_lenient.jsonl: replies scored by AISBench's own code.

Run it with the Python of an environment where AISBench 3.1 (`ais-bench-benchmark==3.1.20260630`)
and `math-verify==0.5.2` (the version its `full` extra pins) are installed, never thinkeval's:

    /tmp/aisbench-venv/bin/python tests/data/make_aisbench_lenient.py [--out FILE] [--seed N]

For each case (the labelled reply corpus, hand-written odd cases and seeded random text) it runs
AISBench's real functions: `VLLMCustomAPIChat.parse_text_response` and `Output.get_prediction`
(the prediction), `extract_non_reasoning_content` (the chat model config's post-processor), the
dataset's post-processor and its evaluator. tests/test_lenient_aisbench.py checks that thinkeval's
lenient scorer gives the same on every line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

from ais_bench.benchmark.datasets.gsm8k import Gsm8kEvaluator, gsm8k_postprocess
from ais_bench.benchmark.datasets.math import MATHEvaluator as MathEvaluatorV2
from ais_bench.benchmark.datasets.math import math_postprocess_v2
from ais_bench.benchmark.models.api_models.vllm_custom_api_chat import VLLMCustomAPIChat
from ais_bench.benchmark.models.output import RequestOutput
from ais_bench.benchmark.openicl.icl_evaluator import AccEvaluator, MATHEvaluator
from ais_bench.benchmark.utils.postprocess.model_postprocessors import (
    extract_non_reasoning_content,
)
from ais_bench.benchmark.utils.postprocess.text_postprocessors import (
    first_capital_postprocess,
    last_option_postprocess,
)

HERE = Path(__file__).parent
OUT = HERE / "aisbench_lenient.jsonl"
# The lenient rule of each task whose labelled replies are scored too (AIME and MATH-500 ones
# come with tests/data/replies_math.jsonl).
TASK_RULES = {
    "gsm8k": "gsm8k",
    "boolq": "first-capital",
    "ceval": "last-option-ABCD",
    "aime24": "aime",
    "aime25": "aime",
    "math500": "math",
}
GOLDS = {
    "gsm8k": ["18", "-3", "0.5", "1200", "7"],
    "first-capital": ["A", "B"],
    "last-option-ABCD": ["A", "B", "C", "D"],
    "aime": ["204", "18", "3", "0.5", "\\frac{1}{2}"],
    "math": ["\\frac{1}{2}", "3\\sqrt{2}", "18", "(3, 4)", "x^2+1"],
}
PIECES = [
    "<think>", "</think>", "Question:", " ", "  ", "\n", "\n\n", "A", "B", "C", "D", "a", "b",
    "The answer is ", "answer: ", "答案：", "选", "1", "18", "-", "−", ".", ",", "1,200", "0.5",
    "204", "\\boxed{", "}", "{", "$", "\\$", "Ｂ", "É", "５", "x", "final answer", "answer is",
    "\\frac", "\\frac12", "\\fbox{", "and", "inf", "\\text{", "=", "/", "\\sqrt2", "%", "\\%",
    "Yes", "No", "\\left(", "\\right)", "3, 4", "\\dfrac{1}{2}", "x^2+1", "{,}", "\\!", "dollars",
]  # fmt: skip
ODD = [  # (rule, content, reasoning, gold)
    ("last-option-ABCD", "The answer is B. Done", None, "B"),
    ("last-option-ABCD", "答案：Ｂ", None, "B"),
    ("last-option-ABCD", "  ", "答案：B", "B"),
    ("last-option-ABCD", None, "So the answer is B", "B"),
    ("last-option-ABCD", "x<think>D</think>B", None, "B"),
    ("first-capital", "É, the passage... A", None, "A"),
    ("first-capital", "yes", "Because A", "A"),
    ("gsm8k", "The answer is 1,200.", None, "1200"),
    ("gsm8k", "The answer is １８.", None, "18"),
    ("gsm8k", "18.000000001", None, "18"),
    ("gsm8k", "The answer is 18.\n\nQuestion: The answer is 20", None, "18"),
    ("gsm8k", "0.5", None, "0.5"),
    ("gsm8k", "<think>9 * 2 = 18</think>\n\n<think>so 20", None, "18"),
    ("aime", "\\boxed{\\text{204}}", None, "204"),
    ("aime", "\\fbox{204}", None, "204"),
    ("aime", "The final answer is 0.5.", None, "\\frac{1}{2}"),
    ("aime", "\\boxed{{204}}", None, "204"),
    ("aime", "\\boxed{}", None, "204"),
    ("aime", "so the answer is $204$ and done", None, "204"),
    ("aime", "\\boxed{204 \\text{ ways}}", None, "204"),
    ("math", "\\boxed{\\frac{1}{2}}", None, "\\frac{1}{2}"),
    ("math", "\\boxed{0.5}", None, "\\frac{1}{2}"),
    ("math", "The answer is 3\\sqrt{2}.", None, "3\\sqrt{2}"),
    ("math", "\\boxed{(3,4)}", None, "(3, 4)"),
]
MODEL = VLLMCustomAPIChat(path="", model="m", host_ip="127.0.0.1", host_port=1)


def prediction(content: str | None, reasoning: str | None) -> str:
    """What AISBench stores for a vLLM chat reply with this content and reasoning."""
    output = RequestOutput()
    message = {"content": content, "reasoning": reasoning}
    asyncio.run(MODEL.parse_text_response({"choices": [{"message": message}]}, output))
    return output.get_prediction()


def score(rule: str, text: str, gold: str) -> tuple[Any, bool]:
    """(what the post-processor extracted, whether the evaluator counts it correct)."""
    if rule == "gsm8k":
        extracted = gsm8k_postprocess(text)
        return extracted, Gsm8kEvaluator().is_equal(extracted, gold)
    if rule in ("first-capital", "last-option-ABCD"):
        if rule == "first-capital":
            extracted = first_capital_postprocess(text)
        else:
            extracted = last_option_postprocess(text, "ABCD")
        return extracted, AccEvaluator().score([extracted], [gold])["accuracy"] == 100
    if rule == "aime":
        extracted = math_postprocess_v2(text)
        return extracted, MathEvaluatorV2(version="v2").is_equiv(extracted, gold)
    result = MATHEvaluator().score([text], [gold])
    return None, result["accuracy"] == 100


def case(rule: str, content: str | None, reasoning: str | None, gold: str) -> dict[str, Any]:
    predicted = prediction(content, reasoning)
    text = extract_non_reasoning_content(predicted)
    row: dict[str, Any] = {"rule": rule, "content": content, "reasoning": reasoning, "gold": gold}
    row.update(prediction=predicted, text=text, extracted=None, correct=False, raises=None)
    try:
        row["extracted"], row["correct"] = score(rule, text, gold)
    except Exception as exc:  # AISBench's evaluation of the dataset would stop here
        row["raises"] = type(exc).__name__
    return row


def random_text(rng: random.Random) -> str | None:
    roll = rng.random()
    if roll < 0.08:
        return None
    if roll < 0.12:
        return rng.choice(["", " ", "\n\n"])
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))


def cases(seed: int) -> list[tuple[str, str | None, str | None, str]]:
    out: list[tuple[str, str | None, str | None, str]] = []
    for path in sorted(HERE.glob("replies*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rule = TASK_RULES.get(row["task"])
            if rule is not None:
                out.append((rule, row["content"], row["reasoning"], row["gold"]))
    out.extend(ODD)
    rng = random.Random(seed)
    for rule, golds in GOLDS.items():
        for _ in range(300 if rule != "math" else 150):
            out.append((rule, random_text(rng), random_text(rng), rng.choice(golds)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--seed", type=int, default=20260630)
    args = parser.parse_args()
    rows = [case(*item) for item in cases(args.seed)]
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{args.out}: {len(rows)} cases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
