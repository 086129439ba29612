"""The newer vLLM eras: 0.11.1-0.15 (`reasoning` and `reasoning_content`) and the latest (0.32-0.33:
`reasoning` only, the 0.17+ parser, `max_tokens` clamped to the context). The base `Profile` is
vLLM 0.10."""

from __future__ import annotations

import hashlib
from typing import Any

from thinkeval.sim.profiles import Profile


class Vllm013(Profile):
    """vLLM 0.11.1-0.15: both `reasoning` and `reasoning_content`, legacy parser still."""

    name = "vllm-0.13"
    version = "0.13.0"
    id_hex = 16
    reasoning_fields = ("reasoning", "reasoning_content")

    def delta(self, kind: str, text: str = "") -> dict[str, Any]:
        # The compat validator sets reasoning_content on every delta, so exclude_unset keeps it.
        if kind == "role":
            return {"role": "assistant", "content": "", "reasoning_content": None}
        if kind == "content":
            return {"content": text, "reasoning_content": None}
        if kind == "end":
            return {"reasoning_content": None}
        return super().delta(kind, text)


class VllmLatest(Profile):
    """vLLM 0.32-0.33: `reasoning` only, 0.17+ parser, reasoning_tokens, max_tokens clamped."""

    name = "vllm-latest"
    version = "0.33.0"
    id_hex = 16
    reasoning_fields = ("reasoning",)
    legacy_split = False
    lists_tool_calls = False
    late_fields = True
    none_suffix = ""
    names_param = True
    clamps_max_tokens = True
    reasoning_details = True

    def fingerprint(self, model: str) -> str | None:
        return f"vllm-{self.version}-{hashlib.sha1(model.encode()).hexdigest()[:8]}"
