"""The math benchmark's arithmetic and rendering, on hand-made figures (nothing is run)."""

from __future__ import annotations

import pytest

from thinkeval_bench.maths import RunFigures, Timing, math_tasks, per_request_ms, render


def _run(name: str, requests: int, cpu: float, own: float, asking: float = 0.0) -> RunFigures:
    return RunFigures(name, requests, 1.0, cpu, own, asking, 12.0, 3.0, 2.0, 0.1)


def test_per_request_cpu_is_the_difference_of_two_sizes() -> None:
    small, large = _run("math-74", 74, 1.5, 0.5), _run("math-740", 740, 2.832, 1.166)
    assert per_request_ms(small, large) == pytest.approx(2.0)
    assert per_request_ms(small, large, "self_cpu_s") == pytest.approx(1.0)


def test_timings_and_the_rendered_ratios() -> None:
    timing = Timing.of([0.001 * i for i in range(1, 101)])
    assert (timing.replies, timing.median_ms, timing.max_ms) == (100, 50.5, 100.0)
    assert timing.p99_ms == 99.0
    figures = {"replies": 10, "median_ms": 2.0, "p90_ms": 3.0, "p99_ms": 4.0, "max_ms": 5.0}
    number = {**figures, "median_ms": 0.5}
    scoring = {"math": figures, "math_verify_only": figures, "number": number,
               "pool_round_trip": figures, "math_quick_share": 0.75}  # fmt: skip
    runs = [
        _run("math-74", 74, 1.5, 0.5, 0.1),
        _run("math-740", 740, 2.832, 1.166, 0.6995),
        _run("gsm8k-74", 74, 0.3, 0.3, 0.05),
        _run("gsm8k-740", 740, 0.633, 0.6, 0.2498),
    ]
    text = render(scoring, runs)
    assert "math / number, median: 4.0x; decided without Math-Verify: 75%" in text
    assert "math 2.00 ms (the run's own process 1.00 ms, scoring workers 1.00 ms)" in text
    assert "gsm8k 0.50 ms; math / gsm8k 4.0x" in text
    assert "the bench's ticker): math 0.90 ms, gsm8k 0.30 ms" in text


def test_the_math_workload_sizes() -> None:
    def units(tasks: list[dict[str, int | str]]) -> int:
        return sum(int(t["limit"]) * int(t.get("repeats", 1)) for t in tasks)

    assert units(math_tasks(1)) == 74 and units(math_tasks(10)) == 740
