"""LiveCodeBench release_v2 (511 problems, May 2023 - May 2024),
from the hub (`tasks.livecodebench`)."""

from __future__ import annotations

from thinkeval.tasks.livecodebench import livecodebench_spec

SPEC = livecodebench_spec("livecodebench_v2", "release_v2")
