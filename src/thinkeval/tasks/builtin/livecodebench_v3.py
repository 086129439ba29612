"""LiveCodeBench release_v3 (612 problems, May 2023 - Jul 2024),
from the hub (`tasks.livecodebench`)."""

from __future__ import annotations

from thinkeval.tasks.livecodebench import livecodebench_spec

SPEC = livecodebench_spec("livecodebench_v3", "release_v3")
