"""LiveCodeBench, the latest official release (release_v6: 1055 problems, May 2023 - Apr 2025),
from the hub; its releases and the prompt are in `tasks.livecodebench` (docs/code.md)."""

from __future__ import annotations

from thinkeval.tasks.livecodebench import livecodebench_spec

SPEC = livecodebench_spec("livecodebench", "release_v6", ("lcb_code_generation", "livecodebench"))
