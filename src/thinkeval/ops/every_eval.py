"""A run's results in the Every Eval Ever formats (schema 0.2.1): per model, one aggregate JSON
(`evaluation_results`: one entry per task and phase, strict accuracy with its counts and Wilson
interval) and one instance-level JSONL file (one line per sample, repeat and phase that has a
reply), linked by `evaluation_id` and `evaluation_result_id`. docs/comparing.md has the mapping.

Outcome classes map to `evaluation.is_correct` / `score`: `correct` is 1 and true; `wrong`,
`no_answer`, `empty` and `unfinished` are 0 and false, with the class kept in
`metadata.outcome`; a transport `error` is 0 and false with the message in `error`; a pending
unit (no reply yet) has no line. The aggregate's score is thinkeval's accuracy (correct / every
unit, errors and pending included), and its details give every class's count.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from thinkeval.generation import GenerationSettings
from thinkeval.records import Attempt, Sample
from thinkeval.results.loaded import load_run
from thinkeval.results.stats import wilson_interval
from thinkeval.results.summary import OUTCOMES, TaskResult, sample_result
from thinkeval.store.counted import Journals, count_journal, index_samples
from thinkeval.store.rundir import read_samples, write_atomic
from thinkeval.version import __version__

SCHEMA_VERSION = "0.2.1"
INSTANCE_SCHEMA_VERSION = "instance_level_eval_0.2.1"
PHASES = ("fixed", "adaptive")
RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")


def _strings(values: dict[str, Any]) -> dict[str, str]:
    """A `additional_details` map: every value a string, None left out."""
    return {
        key: value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        for key, value in values.items()
        if value is not None
    }


def _generation_args(settings: GenerationSettings, max_tokens: int) -> dict[str, Any]:
    args: dict[str, Any] = {"max_tokens": max_tokens}
    for key, value in (("temperature", settings.temperature), ("top_p", settings.top_p),
                       ("top_k", settings.top_k)):  # fmt: skip
        if isinstance(value, int | float):
            args[key] = value
    kwargs = settings.chat_template_kwargs
    thinking = kwargs.get("enable_thinking") if isinstance(kwargs, dict) else None
    if isinstance(thinking, bool):
        args["reasoning"] = thinking
    return args


def _result(
    result: TaskResult, phase: str, generation: GenerationSettings, digest: str | None
) -> dict[str, Any]:
    block = result.fixed if phase == "fixed" else result.adaptive
    counts = {name: getattr(block, name) for name in (*OUTCOMES, "pending")}
    budget = result.budgets[0] if phase == "fixed" else result.budgets[1]
    low, high = wilson_interval(block.correct, result.total)
    return {
        "evaluation_result_id": f"{result.task}/{phase}",
        "evaluation_name": result.task,
        "source_data": {
            "dataset_name": result.task,
            "source_type": "other",
            "additional_details": _strings({"prompt_digest": digest, "samples": result.samples}),
        },
        "metric_config": {
            "evaluation_description": (
                f"strict accuracy, {phase} phase: one reply per unit at {result.budgets[0]} "
                "tokens"
                + (
                    ""
                    if phase == "fixed"
                    else f", empty or unfinished replies asked once more at {result.budgets[1]}"
                )
            ),
            "metric_id": "accuracy",
            "metric_name": f"strict accuracy ({phase})",
            "metric_kind": "accuracy",
            "metric_unit": "proportion",
            "metric_parameters": {"phase": phase, "budget": budget, "repeats": result.repeats},
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": 0.0,
            "max_score": 1.0,
        },
        "score_details": {
            "score": block.correct / result.total if result.total else 0.0,
            "details": _strings({**counts, "units": result.total}),
            "uncertainty": {
                "confidence_interval": {
                    "lower": low,
                    "upper": high,
                    "confidence_level": 0.95,
                    "method": "wilson",
                },
                "num_samples": result.total,
            },
        },
        "generation_config": {
            "generation_args": _generation_args(generation, budget),
            "additional_details": _strings(generation.as_dict()),
        },
    }


def _instance(
    evaluation_id: str,
    model_id: str,
    sample: Sample,
    repeat: int,
    phase: str,
    status: str,
    answer: str | None,
    attempt: Attempt,
) -> dict[str, Any]:
    raw = "\n\n".join(m.get("content", "") for m in sample.messages if m.get("role") == "user")
    usage = attempt.usage
    tokens = None
    if usage.prompt_tokens is not None and usage.completion_tokens is not None:
        tokens = {
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens,
            "total_tokens": usage.prompt_tokens + usage.completion_tokens,
            "reasoning_tokens": usage.reasoning_tokens,
        }
    attribution = []
    if answer is not None and status != "error":
        attribution.append(
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": answer,
                "extraction_method": "thinkeval strict scorer",
                "is_terminal": True,
            }
        )
    return {
        "schema_version": INSTANCE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": model_id,
        "evaluation_name": sample.task,
        "evaluation_result_id": f"{sample.task}/{phase}",
        "sample_id": sample.id,
        "sample_hash": hashlib.sha256((raw + sample.gold).encode()).hexdigest(),
        "interaction_type": "single_turn",
        "input": {
            "raw": raw,
            "formatted": json.dumps(list(sample.messages), ensure_ascii=False),
            "reference": [sample.gold],
        },
        "output": {
            "raw": [attempt.content or ""],
            "reasoning_trace": None if attempt.reasoning is None else [attempt.reasoning],
        },
        "messages": None,
        "answer_attribution": attribution,
        "evaluation": {
            "score": float(status == "correct"),
            "is_correct": status == "correct",
            "num_turns": 1,
        },
        "token_usage": tokens,
        "performance": {
            "latency_ms": None if attempt.latency_s is None else 1000 * attempt.latency_s,
            "time_to_first_token_ms": None if attempt.ttft_s is None else 1000 * attempt.ttft_s,
        },
        "error": attempt.error,
        "metadata": _strings(
            {
                "outcome": status,
                "phase": phase,
                "repeat": str(repeat),
                "budget": attempt.budget,
                "finish_reason": attempt.finish_reason,
                "subset": sample.subset,
            }
        ),
    }


def _instances(run_dir: Path, model: str, evaluation_id: str, model_id: str) -> Iterator[str]:
    run = load_run(run_dir)
    tasks = run.tasks()
    repeats = {task: run.config.task(task).repeats for task in tasks}
    indexes = index_samples(run_dir, repeats)
    with Journals(run_dir) as journals:
        counted = count_journal(journals, indexes)
        for task in tasks:
            spec, entry, k = run.config.task(task).spec, counted.get((model, task)), repeats[task]
            for sample in read_samples(run_dir, task):
                slot = indexes[task].slot(sample.id)
                assert slot is not None  # indexed from the same samples file
                for repeat in range(k):
                    unit = slot * k + repeat
                    found = sample_result(entry, unit, journals, spec, sample.gold)
                    if found is None or found.fixed is None or entry is None:
                        continue  # pending: no line
                    fixed = journals.read(entry.fixed[unit])
                    retry_ref = entry.retry_ref(unit) if found.candidate else 0
                    counted_by = {"fixed": (found.fixed, fixed)}
                    if not found.candidate:
                        counted_by["adaptive"] = (found.fixed, fixed)
                    elif retry_ref and found.retry is not None:
                        counted_by["adaptive"] = (found.retry, journals.read(retry_ref))
                    for phase, (outcome, attempt) in counted_by.items():
                        line = _instance(
                            evaluation_id,
                            model_id,
                            sample,
                            repeat,
                            phase,
                            outcome.status,
                            outcome.answer,
                            attempt,
                        )
                        yield json.dumps(line, ensure_ascii=False, sort_keys=True)


def _counted(lines: Iterator[str], digest: Any, counted: list[int]) -> Iterator[bytes]:
    """Each line encoded with its newline, hashed into `digest` and counted in `counted[0]`."""
    for line in lines:
        data = (line + "\n").encode()
        digest.update(data)
        counted[0] += 1
        yield data


def export_every_eval(
    run_dir: str | Path,
    out_dir: str | Path,
    organization: str = "unknown",
    relationship: str = "other",
    now: float | None = None,
) -> list[Path]:
    """Write `<model>.json` and `<model>.samples.jsonl` per model of the run into `out_dir`;
    returns the paths written. Reads only the run directory."""
    if relationship not in RELATIONSHIPS:
        raise ValueError(f"relationship must be one of {', '.join(RELATIONSHIPS)}")
    run_path, out = Path(run_dir), Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    run = load_run(run_path)
    stamp = str(int(time.time() if now is None else now))
    written: list[Path] = []
    for model in run.config.models:
        evaluation_id = f"{run.config.run}/{model.name}/{stamp}"
        samples = out / f"{model.name}.samples.jsonl"
        digest, counted = hashlib.sha256(), [0]
        lines = _instances(run_path, model.name, evaluation_id, model.served_model)
        # Temp file and rename: a full disk leaves the old file or none, never half of one.
        write_atomic(samples, _counted(lines, digest, counted))
        rows = counted[0]
        results = []
        for result in run.summary.results:
            if result.model != model.name:
                continue
            task = run.config.task(result.task)
            generation = task.request_generation(model.generation_settings)
            asked = run.config.entry(result.task).digest  # of the prompts asked
            results += [_result(result, phase, generation, asked) for phase in PHASES]
        aggregate = {
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": evaluation_id,
            "retrieved_timestamp": stamp,
            "source_metadata": {
                "source_name": "thinkeval",
                "source_type": "evaluation_run",
                "source_organization_name": organization,
                "evaluator_relationship": relationship,
                "additional_details": _strings(
                    {"run": run.config.run, "complete": run.summary.complete}
                ),
            },
            "eval_library": {"name": "thinkeval", "version": __version__},
            "model_info": {
                "name": model.name,
                "id": model.served_model,
                "inference_engine": {"name": model.api},
            },
            "evaluation_results": results,
            "detailed_evaluation_results": {
                "format": "jsonl",
                "file_path": samples.name,
                "hash_algorithm": "sha256",
                "checksum": digest.hexdigest(),
                "total_rows": rows,
            },
        }
        path = out / f"{model.name}.json"
        write_atomic(path, (json.dumps(aggregate, indent=2, ensure_ascii=False) + "\n").encode())
        written += [path, samples]
    return written
