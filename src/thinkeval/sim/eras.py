"""Every server era the simulator can look like, by its `--profile` name."""

from __future__ import annotations

from thinkeval.sim.config import REASONING_FIELDS
from thinkeval.sim.profile_openai import OpenAI
from thinkeval.sim.profile_sglang import SGLang
from thinkeval.sim.profile_vllm import Vllm013, VllmLatest
from thinkeval.sim.profiles import Profile

PROFILE_CLASSES: dict[str, type[Profile]] = {
    cls.name: cls for cls in (Profile, Vllm013, VllmLatest, SGLang, OpenAI)
}


def get_profile(name: str, reasoning_field: str = "") -> Profile:
    """The profile for a `--profile` name, sending its reasoning in `reasoning_field`'s
    field(s) when given (`SimConfig.reasoning_field`)."""
    profile = PROFILE_CLASSES[name]()
    if REASONING_FIELDS.get(reasoning_field):
        profile.reasoning_fields = REASONING_FIELDS[reasoning_field]
    return profile
