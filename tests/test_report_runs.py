"""Hand-made run directories for the report tests, and checks that they say what they mean.

A run is written with the real writers (`rundir.write_json`, `rundir.write_samples`,
`journal.Journal`), so the report reads exactly what `thinkeval run` would leave behind. Each
reply is made from the strict verdict it should get, with texts like a thinking model's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from thinkeval import score
from thinkeval.records import Attempt, Sample, Usage
from thinkeval.store.journal import Journal
from thinkeval.store.rundir import write_json, write_samples

B1, B2 = 2048, 8192
T0 = 1_750_000_000.0  # a fixed unix time, so timings are known exactly

# GSM8K-style problems: question, gold, a worked solution ending in the gold number.
GSM8K_PROBLEMS = [
    (
        "Natalia sold clips to 48 of her friends in April, and then she sold half as many "
        "clips in May. How many clips did Natalia sell altogether in April and May?",
        "72",
        "In May Natalia sold 48 / 2 = 24 clips.\nAltogether she sold 48 + 24 = 72 clips.",
    ),
    (
        "Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of "
        "babysitting. How much did she earn?",
        "10",
        "Weng earns 12 / 60 = $0.2 per minute.\nFor 50 minutes she earned 0.2 x 50 = $10.",
    ),
    (
        "Betty is saving money for a new wallet which costs $100. Betty has only half of the "
        "money she needs. Her parents decided to give her $15 for that purpose, and her "
        "grandparents twice as much as her parents. How much more money does Betty need to "
        "buy the wallet?",
        "5",
        "Betty has 100 / 2 = $50. Her grandparents give 15 x 2 = $30.\n"
        "She still needs 100 - 50 - 30 - 15 = $5.",
    ),
    (
        "James writes a 3-page letter to 2 different friends twice a week. How many pages "
        "does he write a year?",
        "624",
        "He writes 3 x 2 = 6 pages per session, so 6 x 2 = 12 pages a week.\n"
        "In a year that is 12 x 52 = 624 pages.",
    ),
]
GSM8K_EXEMPLARS = (
    {
        "role": "user",
        "content": "Question: There are 15 trees in the grove. Grove workers will plant trees "
        "in the grove today. After they are done, there will be 21 trees. How many trees did "
        "the grove workers plant today?\nLet's think step by step\nAnswer:",
    },
    {
        "role": "assistant",
        "content": "There are 15 trees originally.\nThen there were 21 trees after some more "
        "were planted.\nSo there must have been 21 - 15 = 6.\nThe answer is 6\n",
    },
)
BOOLQ_PASSAGES = [
    (
        "Persian language -- Persian is one of the Western Iranian languages within the "
        "Indo-Iranian branch of the Indo-European language family.",
        "do iran and afghanistan speak the same language",
        "A",
    ),
    (
        "Good Samaritan laws offer legal protection to people who give reasonable assistance "
        "to those who are, or who they believe to be, injured, ill, in peril.",
        "do good samaritan laws protect those who help at an accident",
        "A",
    ),
    (
        "Windows Movie Maker was discontinued in January 2017 and is no longer available for "
        "download from Microsoft.",
        "is windows movie maker part of windows essentials",
        "B",
    ),
]
CEVAL_SUBJECTS = {"law": "法学", "accountant": "注册会计师"}


def gsm8k_sample(i: int) -> Sample:
    question, gold, _ = GSM8K_PROBLEMS[i % len(GSM8K_PROBLEMS)]
    prompt = f"Question: {question}\nLet's think step by step\nAnswer:"
    return Sample(
        id=f"gsm8k/{i}",
        task="gsm8k",
        messages=(*GSM8K_EXEMPLARS, {"role": "user", "content": prompt}),
        gold=gold,
    )


def boolq_sample(i: int) -> Sample:
    passage, question, gold = BOOLQ_PASSAGES[i % len(BOOLQ_PASSAGES)]
    prompt = f"{passage}\nQuestion: {question}?\nA. Yes\nB. No\nAnswer:"
    return Sample(
        id=f"boolq/{i}",
        task="boolq",
        messages=({"role": "user", "content": prompt},),
        gold=gold,
    )


def ceval_sample(subject: str, i: int) -> Sample:
    prompt = (
        f"以下是中国关于{CEVAL_SUBJECTS[subject]}考试的单项选择题，请选出其中的正确答案。"
        "回答的最后一行应采用以下格式：”answer:$LETTER“（不带引号），其中LETTER 是ABCD之一。"
        f"回答之前先一步步思考。\n\n第{i + 1}题：下列说法正确的是\nA. 甲\nB. 乙\nC. 丙\nD. 丁"
    )
    return Sample(
        id=f"ceval/{subject}/{i}",
        task="ceval",
        messages=({"role": "user", "content": prompt},),
        gold="ABCD"[i % 4],
        subset=subject,
    )


def _solution(sample: Sample) -> str:
    if sample.task == "gsm8k":
        index = int(sample.id.split("/")[1]) % len(GSM8K_PROBLEMS)
        return GSM8K_PROBLEMS[index][2]
    return "Let me look at the passage again."


def _other(gold: str) -> str:
    """A wrong answer of the same kind as `gold`."""
    if gold.isdigit():
        return str(int(gold) + 1)
    return "B" if gold != "B" else "A"


def _final(task: str, answer: str) -> str:
    if task == "gsm8k":
        return f"The answer is {answer}"
    if task == "ceval":
        return f"answer: {answer}"
    return answer


def reply_text(sample: Sample, status: str) -> tuple[str | None, str]:
    """Content and finish reason that the strict scorer judges as `status`."""
    task, gold = sample.task, sample.gold
    if status == "correct":
        return f"{_solution(sample)}\n{_final(task, gold)}", "stop"
    if status == "wrong":
        return f"{_solution(sample)}\n{_final(task, _other(gold))}", "stop"
    if status == "no_answer":
        return "I am not able to decide this from the information given.", "stop"
    if status == "empty":
        return None, "length"
    if status == "unfinished":
        return "Let me work through this carefully. First, I", "length"
    raise ValueError(status)


def reply(
    model: str,
    sample: Sample,
    phase: str,
    status: str,
    tokens: int | None = None,
    *,
    reasoning: str | None = "Okay, let me read the question carefully and work it out.",
    reasoning_tokens: int | None = None,
    started_at: float = T0,
    latency_s: float | None = 1.0,
    ttft_s: float | None = None,
    content: str | None = None,
    repeat: int = 0,
    budgets: tuple[int, int] = (B1, B2),
) -> Attempt:
    """One attempt whose strict verdict is `status` ("error": a transport failure)."""
    budget = budgets[0] if phase == "fixed" else budgets[1]
    if tokens is None:
        tokens = budget if status in ("empty", "unfinished") else 300
    common = {
        "model": model,
        "task": sample.task,
        "sample_id": sample.id,
        "repeat": repeat,
        "phase": phase,
        "budget": budget,
        "max_tokens": budget,
        "started_at": started_at,
        "latency_s": latency_s,
    }
    if status == "error":
        return Attempt(
            **common,  # type: ignore[arg-type]
            error="HTTP 503 from http://127.0.0.1:8006/v1: Service Unavailable",
            error_kind="server_error",
            http_status=503,
            tries=6,
        )
    text, finish = reply_text(sample, status)
    return Attempt(
        **common,  # type: ignore[arg-type]
        content=text if content is None else content,
        reasoning=reasoning,
        finish_reason=finish,
        usage=Usage(prompt_tokens=180, completion_tokens=tokens, reasoning_tokens=reasoning_tokens),
        http_status=200,
        ttft_s=ttft_s,
    )


def make_run(
    run_dir: Path,
    samples: dict[str, Sequence[Sample]],
    attempts: Iterable[Attempt],
    models: Sequence[str],
    budgets: tuple[int, int] = (B1, B2),
    name: str | None = None,
    tasks: dict[str, dict[str, object]] | None = None,
) -> Path:
    """Write a run directory: config.json, samples/<task>.jsonl and one journal; `tasks` adds
    settings to a task's entry (its own `budgets`, `repeats`)."""
    write_json(
        run_dir / "config.json",
        {
            "run": name or run_dir.name,
            "budgets": list(budgets),
            "models": [{"name": m, "base_url": "http://127.0.0.1:9/v1"} for m in models],
            "tasks": [{"name": t, **(tasks or {}).get(t, {})} for t in samples],
        },
    )
    for task, items in samples.items():
        write_samples(run_dir, task, list(items))
    with Journal(run_dir, "main") as journal:
        for attempt in attempts:
            journal.append(attempt)
    return run_dir


def test_replies_get_the_intended_strict_verdicts() -> None:
    samples = [gsm8k_sample(0), boolq_sample(2), ceval_sample("law", 1)]
    for sample in samples:
        for status in ("correct", "wrong", "no_answer", "empty", "unfinished"):
            attempt = reply("m", sample, "fixed", status)
            verdict = score(sample.task, attempt.content, attempt.finish_reason, sample.gold)
            assert verdict.status == status, (sample.id, status, attempt.content)
