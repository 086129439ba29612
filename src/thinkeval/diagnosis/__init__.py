"""Why a reply did not finish: loops, hesitation, an answer found then lost, parser trouble.

`diagnose` reads one reply's stored texts (`reply.py`, with `loop.py`, `hesitation.py` and
`pieces.py`). Nothing here calls a model: a run is diagnosed again from its journal
(`DIAGNOSIS_VERSION`).
"""

from __future__ import annotations

from thinkeval.diagnosis.reply import (
    DIAGNOSIS_VERSION,
    LABELS,
    REPLY_LABELS,
    Diagnosis,
    DiagnosisParams,
    diagnose,
    reply_label,
)

__all__ = [
    "DIAGNOSIS_VERSION",
    "LABELS",
    "REPLY_LABELS",
    "Diagnosis",
    "DiagnosisParams",
    "diagnose",
    "reply_label",
]
