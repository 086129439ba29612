"""RESULTS.md's owned sections: each script replaces only its own, and a full re-render of the
page by run_bench.py keeps them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from thinkeval_bench.maths import RunFigures, results_section
from thinkeval_bench.sections import MARKERS, keep_sections, put_section


def _marked(owner: str, body: str) -> str:
    start, end = MARKERS[owner]
    return f"{start}\n{body}\n{end}\n"


def test_each_section_replaces_its_old_self_and_both_survive_a_render(tmp_path: Path) -> None:
    page = tmp_path / "RESULTS.md"
    page.write_text("# Results\n\nother numbers\n", "utf-8")
    put_section(page, _marked("server-bound", "first"), "server-bound")
    put_section(page, _marked("math", "maths one"), "math")
    put_section(page, _marked("server-bound", "second"), "server-bound")
    put_section(page, _marked("math", "maths two"), "math")
    put_section(page, _marked("continue", "continued"), "continue")
    put_section(page, _marked("decide", "decided"), "decide")
    put_section(page, _marked("affinity", "routed"), "affinity")
    text = page.read_text("utf-8")
    for start, _ in MARKERS.values():
        assert text.count(start) == 1
    assert "second" in text and "maths two" in text and "other numbers" in text
    assert "first" not in text and "maths one" not in text
    assert text.index("second") < text.index("maths two")  # each stays where it was

    rendered = keep_sections(text, "# Results\n\nnew numbers\n")
    assert "new numbers" in rendered and "other numbers" not in rendered
    assert "second" in rendered and "maths two" in rendered and "continued" in rendered
    assert "decided" in rendered and "routed" in rendered
    # a page that brings its own copy of a section is left as it is
    fresh = "# Results\n\n" + _marked("math", "maths three")
    assert keep_sections(text, fresh).count(MARKERS["math"][0]) == 1
    assert "maths two" not in keep_sections(text, fresh)


def test_a_section_without_its_markers_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="math section"):
        put_section(tmp_path / "RESULTS.md", "## no markers\n", "math")


def _run(name: str, requests: int, asking: float, busy: float) -> RunFigures:
    return RunFigures(name, requests, 1.0, 2.0 * asking, 1.5 * asking, asking, 12.0, 3.0, busy,
                      0.1)  # fmt: skip


@pytest.mark.parametrize(
    ("large_asking", "busy", "verdicts"),
    [(0.7, 20.0, ("**met** (0.70 ms)", "**met** (20.0 ms)")),
     (1.5, 60.0, ("**NOT met** (1.50 ms)", "**NOT met** (60.0 ms)"))],
)  # fmt: skip
def test_the_math_section_judges_both_targets(
    large_asking: float, busy: float, verdicts: tuple[str, str]
) -> None:
    figures = {"replies": 10, "median_ms": 2.0, "p90_ms": 3.0, "p99_ms": 4.0, "max_ms": 5.0}
    scoring = {"math": figures, "math_verify_only": figures, "number": figures,
               "pool_round_trip": figures, "math_quick_share": 0.5}  # fmt: skip
    runs = [
        _run("math-74", 74, 0.2, 10.0),
        _run("math-740", 740, 0.2 + large_asking * 666 / 1000, busy),
        _run("gsm8k-74", 74, 0.1, 5.0),
        _run("gsm8k-740", 740, 0.3, 5.0),
    ]
    section = results_section(scoring, runs, command="python bench/math_bench.py",
                              when="2026-12-01 08:00 UTC", settings="commit abc.")  # fmt: skip
    start, end = MARKERS["math"]
    assert section.startswith(start) and section.rstrip().endswith(end)
    assert "Measured 2026-12-01 08:00 UTC with `python bench/math_bench.py`. commit abc." in section
    assert "\n\n| kind | replies |" in section and "| math-740 | 740 |" in section
    assert f"Target CPU per request ≤ 1 ms with math scoring (the run's own process while " \
           f"requests run): {verdicts[0]}" in section  # fmt: skip
    assert f"more than 50 ms: {verdicts[1]}" in section
