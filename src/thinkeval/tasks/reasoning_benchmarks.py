"""What the reasoning benchmarks (AIME, MATH-500) share: the prompt, budgets and sampling.

The prompt is the problem followed by "Please reason step by step, and put your final answer
within \\boxed{}." on its own line: the instruction the DeepSeek-R1 and Qwen3 model cards
recommend for maths, and what AISBench/OpenCompass's AIME and MATH configs send. Thinking
models write 5k-30k tokens on these problems, so the budgets are 16384 then 32768 (the seed
tasks keep 2048 then 8192), and sampling is the model cards' recommendation for thinking mode:
temperature 0.6, top_p 0.95. A config overrides all of it per task.
"""

from __future__ import annotations

from thinkeval.records import Sample
from thinkeval.scoring.kinds.math import MathKind
from thinkeval.tasks.prompts import user_message
from thinkeval.tasks.spec import THINKING_SAMPLING, DataFile, SampleBuilder, TaskSpec

INSTRUCTION = "Please reason step by step, and put your final answer within \\boxed{}."
PROMPT_SOURCE = (
    "problem + 'Please reason step by step, and put your final answer within \\boxed{}.' "
    "(DeepSeek-R1 and Qwen3 model cards; AISBench/OpenCompass AIME and MATH configs)"
)
BUDGETS = (16384, 32768)


def reasoning_sample(
    task: str, key: str, problem: str, gold: str, subset: str | None = None
) -> Sample:
    """One problem asked with the boxed-answer instruction; the id is `task/key`."""
    return Sample(
        id=f"{task}/{key}",
        task=task,
        messages=(user_message(f"{problem}\n{INSTRUCTION}"),),
        gold=gold.strip(),
        subset=subset,
    )


def reasoning_spec(
    name: str,
    description: str,
    file: DataFile,
    sample: SampleBuilder,
    aisbench_names: tuple[str, ...],
    lenient: str,
    ids_from_data: bool = False,
) -> TaskSpec:
    """The spec of a reasoning benchmark: the math answer kind (Math-Verify), the budgets and
    sampling above, the simulator's math flavour, the `math` suite; `lenient` is the AISBench
    post-processor its dataset config uses (`aime` for AIME, `math` for MATH-500)."""
    return TaskSpec(
        name=name,
        version="1",
        description=description,
        files=(file,),
        sample=sample,
        answer=MathKind(),
        lenient=lenient,
        budgets=BUDGETS,
        generation=THINKING_SAMPLING,
        ids_from_data=ids_from_data,
        prompt_source=PROMPT_SOURCE,
        aisbench_names=aisbench_names,
        sim_flavour="math",
        suite="math",
    )
