"""LiveCodeBench release_v4 (713 problems, May 2023 - Sep 2024),
from the hub (`tasks.livecodebench`)."""

from __future__ import annotations

from thinkeval.tasks.livecodebench import livecodebench_spec

SPEC = livecodebench_spec("livecodebench_v4", "release_v4")
