r"""thinkeval: strict fixed-then-adaptive evaluation of thinking models.

The public Python API:

>>> import thinkeval
>>> thinkeval.score("gsm8k", "So she has 18 eggs.\nThe answer is 18", "stop", gold="18").status
'correct'
>>> thinkeval.score("gsm8k", "Let me compute 16 - 3", "length", gold="18").status
'unfinished'
"""

from __future__ import annotations

__version__ = "0.1.0"

from thinkeval.api import score
from thinkeval.records import Attempt, Sample, Verdict

__all__ = ["Attempt", "Sample", "Verdict", "__version__", "score"]
