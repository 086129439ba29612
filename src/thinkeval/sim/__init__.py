"""A vLLM-faithful simulated OpenAI-compatible server, for tests, the demo and benchmarks.

It serves a *simulated* model, not a real LLM: replies are planned deterministically per prompt
(correct, wrong, malformed, empty after `</think>`, long, never finishing) and shaped like one of
several server eras (`vllm-0.10`, `vllm-0.13`, `vllm-latest`, `sglang`, `openai`).

>>> import asyncio, aiohttp
>>> async def demo():
...     async with serve(SimConfig(seed=1)) as base_url:
...         async with aiohttp.ClientSession() as session:
...             async with session.get(f"{base_url}/models") as response:
...                 return (await response.json())["data"][0]["id"]
>>> asyncio.run(demo())
'sim-qwen3'
"""

from thinkeval.sim.app import SIMULATOR_KEY, build_app, serve
from thinkeval.sim.behaviour import Plan, answer_key_from_samples, plan_for, prompt_key
from thinkeval.sim.cli import add_arguments, run
from thinkeval.sim.config import PROFILES, SimConfig
from thinkeval.sim.server import Simulator

__all__ = [
    "PROFILES",
    "SIMULATOR_KEY",
    "Plan",
    "SimConfig",
    "Simulator",
    "add_arguments",
    "answer_key_from_samples",
    "build_app",
    "plan_for",
    "prompt_key",
    "run",
    "serve",
]
