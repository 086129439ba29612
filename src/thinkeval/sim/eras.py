"""Every server era the simulator can look like, by its `--profile` name."""

from __future__ import annotations

from thinkeval.sim.profile_openai import OpenAI
from thinkeval.sim.profile_sglang import SGLang
from thinkeval.sim.profile_vllm import Vllm013, VllmLatest
from thinkeval.sim.profiles import Profile

PROFILE_CLASSES: dict[str, type[Profile]] = {
    cls.name: cls for cls in (Profile, Vllm013, VllmLatest, SGLang, OpenAI)
}


def get_profile(name: str) -> Profile:
    """The profile for a `--profile` name."""
    return PROFILE_CLASSES[name]()
