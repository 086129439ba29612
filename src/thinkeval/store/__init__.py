"""The run store: everything a run directory holds and the rules that read it.

The run directory and its files (`rundir.py`), the journal (`journal.py`), the typed
`config.json` (`run_record.py`), the resolved `run.yaml` (`reproduce.py`), heartbeats and pid
files (`heartbeat.py`), shards and their lock (`shard.py`, `runlock.py`), and the protocol's
rules, read the same way by the executor and by everything that only reads a run (`judge.py`,
its streaming form in `counted.py`). It sits below `run/` (execution), `results/` and
`report/`: none of them is imported from here.
"""
