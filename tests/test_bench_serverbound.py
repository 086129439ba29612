"""The server-bound benchmark's arithmetic and its section of RESULTS.md, on hand-made results."""

from __future__ import annotations

from pathlib import Path

from thinkeval.records import Attempt, Usage
from thinkeval.store.journal import Journal
from thinkeval_bench.serverbound import ClientResult, ModeResult, longest_chain_s, sim_flags
from thinkeval_bench.serverbound_cli import END, START, render_section


def mode(name: str, wall: float) -> ModeResult:
    return ModeResult(
        name,
        wall_s=wall,
        cpu_s=2.0,
        peak_rss_mb=40,
        requests=3000,
        busiest_s=27.0,
        chain_s=4.5,
        exit_codes=[0],
    )


def client(rows: int, cpu: float, rss: float) -> ClientResult:
    return ClientResult(
        rows=rows,
        requests=3 * rows,
        max_in_flight=64,
        cpu_s=cpu,
        peak_rss_mb=rss,
        wall_s=1.0,
        exit_code=0,
    )


def test_the_limit_adds_the_longest_chain_to_the_busiest_server() -> None:
    together = mode("together", 33.0)
    assert together.limit_s == 31.5 and round(together.ratio, 3) == 1.048
    assert sim_flags(32, 0.0005)[:4] == ["--max-num-seqs", "32", "--per-token-s", "0.0005"]


def test_the_longest_chain_is_a_fixed_reply_and_its_retry(tmp_path: Path) -> None:
    def line(sample: str, phase: str, tokens: int) -> Attempt:
        return Attempt(
            model="m",
            task="gsm8k",
            sample_id=sample,
            phase=phase,  # type: ignore[arg-type]
            budget=2048,
            max_tokens=2048,
            content="x",
            state="finished",
            usage=Usage(completion_tokens=tokens),
        )

    with Journal(tmp_path, "main") as journal:
        for attempt in (
            line("a", "fixed", 2048),
            line("a", "retry", 5000),
            line("b", "fixed", 6000),
        ):
            journal.append(attempt)
    assert longest_chain_s(tmp_path, 0.001) == 7.048


def test_the_section_says_whether_the_targets_are_met() -> None:
    section = render_section(
        [mode("together", 33.0), mode("model-by-model", 90.0)],
        [client(1000, 1.0, 40.0), client(5000, 2.2, 41.0)],
        command="python bench/server_bound.py",
        when="today",
        settings="Small.",
    )
    assert section.startswith(START) and section.rstrip().endswith(END)
    assert "| together | 3000 | 33.0 | 27.0 | 4.5 | 31.5 | **1.05** | 1.22 |" in section
    assert "| model-by-model | 3000 | 90.0 |" in section and "**2.86**" in section
    assert "all models at once: **met** (1.05)" in section
    assert "**0.10 ms** (target ≤ 1 ms: met)" in section and "+2%" in section
