"""What the report's plots share: the colours of models and phases, and the captioned figure each
plot is drawn in (the plots themselves belong to their sections: outcome bars, solve rates,
budget curves, token histograms, still-thinking curves)."""

from __future__ import annotations

from html import escape

MODEL_COLORS = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
PHASE_COLORS = {"fixed": "#4e79a7", "retry": "#f28e2b"}


def figure(caption: str, svg: str) -> str:
    return f"<figure><figcaption>{escape(caption)}</figcaption>{svg}</figure>"
