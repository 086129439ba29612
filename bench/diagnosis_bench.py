#!/usr/bin/env python3
"""What the reply diagnosis costs per reply (median, p99, worst), beside strict scoring
of the same text as a finished reply's content (the per-reply scoring cost).

    PYTHONPATH=src python bench/diagnosis_bench.py            # 1k, 8k and 32k-token replies
    PYTHONPATH=src python bench/diagnosis_bench.py --reps 50

Replies are written like the corpus of tests/data (English reasoning of varied steps, cut
while thinking), plain, ending in a loop, or hesitating; each is diagnosed `--reps` times.
The worst single call is what one diagnosis would hold an event loop for (budget: 50 ms).
"""

import argparse
import random
import statistics
import time

from thinkeval.diagnosis import diagnose
from thinkeval.diagnosis.pieces import cut
from thinkeval.scoring.kinds import make_kind
from thinkeval.scoring.strict import strict_verdict

_STEP = "Next I take {a} and add {b}, which makes {c}."
_HESITATE = "Wait, maybe it is {a}. Hmm, actually {b} could fit."


def _reply(kind: str, tokens: int, rng: random.Random) -> str:
    parts: list[str] = []
    size = 0
    while size < tokens:  # about 14 pieces a step
        template = _HESITATE if kind == "hesitation" and size > tokens // 2 else _STEP
        numbers = {"a": rng.randint(2, 999), "b": rng.randint(2, 999), "c": rng.randint(2, 9999)}
        parts.append(template.format(**numbers))
        size += 14
    text = " ".join(parts)
    if kind == "loop":  # the last quarter of its pieces loops
        text = _first_pieces(text, tokens * 3 // 4) + " So the total is 42." * (tokens // 7)
    # Exactly `tokens` pieces (the detector's tokens when a reply has no token ids).
    return _first_pieces(text, tokens)


def _first_pieces(text: str, pieces: int) -> str:
    starts = cut(text).starts
    return text[: starts[pieces]] if len(starts) > pieces else text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=20, help="diagnoses per reply")
    args = parser.parse_args()
    rng = random.Random(26)
    number = make_kind("number")
    diagnose("warm up: numpy is imported on first use", None, "length", "empty", number, "1")
    print(
        f"{'reply':<18} {'pieces':>7} {'diag p50 ms':>11} {'p99 ms':>8} {'worst ms':>9} "
        f"{'strict p50 ms':>13} {'ratio':>7}"
    )
    for tokens in (1024, 8192, 32768):
        for kind in ("plain", "loop", "hesitation"):
            text = _reply(kind, tokens, rng)
            pieces = diagnose(text, None, "length", "empty").reasoning_pieces
            diag, strict = [], []
            for _ in range(args.reps):
                start = time.perf_counter()
                diagnose(text, None, "length", "empty", number, "42")
                diag.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                strict_verdict(number, text + "\n\nThe answer is 42.", "stop", "42")
                strict.append((time.perf_counter() - start) * 1000)
            diag.sort()
            # p99 of a few dozen calls is their worst but one (the worst is printed apart).
            p50, p99 = statistics.median(diag), diag[min(len(diag) - 1, int(len(diag) * 0.99))]
            s50 = statistics.median(strict)
            print(
                f"{kind + ' ' + str(tokens):<18} {pieces:>7} {p50:>11.2f} {p99:>8.2f} "
                f"{max(diag):>9.2f} {s50:>13.2f} {p50 / s50 if s50 else float('nan'):>6.1f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
