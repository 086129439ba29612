"""Sections of RESULTS.md that other scripts own: `server_bound.py`, `math_bench.py`,
`continue_bench.py`, `decide_bench.py` and `affinity_bench.py` each put one between its
markers, and `run_bench.py` keeps them when it rewrites the rest of the page."""

from __future__ import annotations

from pathlib import Path

# Each owner's (start, end) markers, in the order they appear on the page.
MARKERS = {
    "server-bound": ("<!-- server-bound:start -->", "<!-- server-bound:end -->"),
    "math": ("<!-- math:start -->", "<!-- math:end -->"),
    "continue": ("<!-- continue:start -->", "<!-- continue:end -->"),
    "decide": ("<!-- decide:start -->", "<!-- decide:end -->"),
    "affinity": ("<!-- affinity:start -->", "<!-- affinity:end -->"),
}


def _section(text: str, start: str, end: str) -> str | None:
    if start not in text or end not in text[text.index(start) :]:
        return None
    at = text.index(start)
    return text[at : text.index(end, at) + len(end)]


def keep_sections(old: str, new: str) -> str:
    """`new`, with each owned section of `old` that `new` lacks appended."""
    page = new
    for start, end in MARKERS.values():
        section = _section(old, start, end)
        if section is not None and start not in page:
            page = page.rstrip("\n") + "\n\n" + section + "\n"
    return page


def put_section(page: Path, section: str, owner: str) -> None:
    """Replace `owner`'s section in `page` (or append it), leaving the rest as it is."""
    start, end = MARKERS[owner]
    if not (section.startswith(start) and section.rstrip().endswith(end)):
        raise ValueError(f"a {owner} section starts with {start} and ends with {end}")
    text = page.read_text("utf-8") if page.exists() else ""
    old = _section(text, start, end)
    if old is not None:
        text = text.replace(old, section.rstrip("\n"), 1)
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section
    page.write_text(text if text.endswith("\n") else text + "\n", "utf-8")
