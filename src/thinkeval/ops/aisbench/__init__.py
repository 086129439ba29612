"""Importing AISBench predictions as the fixed phase of a thinkeval run (see `importer`)."""

from thinkeval.ops.aisbench.files import AisbenchError, Record, split_prediction
from thinkeval.ops.aisbench.importer import (
    CONFIG_NAME,
    IMPORTED_FROM,
    PLACEHOLDER_BASE_URL,
    ImportResult,
    attempt_from,
    import_aisbench,
)
from thinkeval.ops.aisbench.matching import subset_of, task_of, verify

__all__ = [
    "CONFIG_NAME",
    "IMPORTED_FROM",
    "PLACEHOLDER_BASE_URL",
    "AisbenchError",
    "ImportResult",
    "Record",
    "attempt_from",
    "import_aisbench",
    "split_prediction",
    "subset_of",
    "task_of",
    "verify",
]
