"""The built-in benchmarks: one module per task, each defining `SPEC` (a `TaskSpec`).

The registry imports every module of this package, so a new benchmark is one new file here.
"""
