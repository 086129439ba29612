"""The benchmark behind `bench/run_bench.py`: one GSM8K workload through thinkeval and its peers.

Modules, in the order a run uses them:

* `cli`: the command line; plans, runs, saves and renders.
* `workload`: the GSM8K rows, the 4-shot prompt and the synthetic rows of the memory scenario.
* `runenv`: the environment of every run, and the snapshot of thinkeval it imports.
* `peers`: one module per harness: its pinned packages and how its command line is built.
* `plan`: which runs make up each scenario.
* `simulator`: one `python -m thinkeval sim` process and its `/sim/stats` poller.
* `measure`: running a command in its own session and measuring its process tree.
* `execute`: one run, a harness against a fresh simulator.
* `results`: what a run measured, and the results file (save, load).
* `figures`, `verdicts`, `render`: the arithmetic, targets and checks, and `RESULTS.md`.
* `sections`: the parts of `RESULTS.md` that `server_bound.py` (`serverbound`, `serverbound_cli`)
  and `math_bench.py` (`maths`) own, which a re-render keeps.
* `revisions`, `http_layer`: `compare_revisions.py`, two revisions of thinkeval side by side,
  whole runs and their HTTP layer alone.

`bench/` is not an installed package: `run_bench.py` puts `bench/` on `sys.path`, and pytest
does the same through `pythonpath` in `pyproject.toml`.
"""

from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent
REPO = BENCH_DIR.parent
ADAPTERS = BENCH_DIR / "adapters"
