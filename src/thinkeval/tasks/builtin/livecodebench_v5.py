"""LiveCodeBench release_v5 (880 problems, May 2023 - Jan 2025),
from the hub (`tasks.livecodebench`)."""

from __future__ import annotations

from thinkeval.tasks.livecodebench import livecodebench_spec

SPEC = livecodebench_spec("livecodebench_v5", "release_v5")
