"""The harnesses, one module each: how it is installed (pinned) and how its command is built.

The files each harness reads (configs, task files, a runner script) live in
`bench/adapters/<harness>/`; the module of the same harness fills them in for a run.
"""

from __future__ import annotations

from thinkeval_bench.peers import aisbench, evalscope, inspect_ai, lm_eval, thinkeval
from thinkeval_bench.peers.base import Harness

HARNESSES: dict[str, Harness] = {
    module.HARNESS.name: module.HARNESS
    for module in (thinkeval, aisbench, lm_eval, inspect_ai, evalscope)
}
