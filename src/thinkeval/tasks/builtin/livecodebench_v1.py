"""LiveCodeBench release_v1 (400 problems, May 2023 - Mar 2024),
from the hub (`tasks.livecodebench`)."""

from __future__ import annotations

from thinkeval.tasks.livecodebench import livecodebench_spec

SPEC = livecodebench_spec("livecodebench_v1", "release_v1")
