"""The sample browser's diagnosis filter: the index carries each reply's diagnosis (computed
while the journal is read), and choosing a label lists exactly the replies that have it."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from browsing import browser, open_samples, viewing
from conftest import ThreadedSim, write_config
from test_report_browser import choose, matches
from thinkeval import diagnosis
from thinkeval.cli import main
from thinkeval.diagnosis import counts
from thinkeval.report import _samples_diagnosis, build_report, render_html
from thinkeval.report._collect import collect
from thinkeval.report._samples import Catalog
from thinkeval.sim.config import SimConfig

__all__ = ["browser"]  # the fixture, imported for pytest


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory, answer_key: Any) -> Iterator[Path]:
    """gsm8k, 16 samples: about half never finish, some of those loop, some hesitate."""
    root = tmp_path_factory.mktemp("filter")
    knobs = {"p_never": 0.6, "p_loop": 0.4, "p_hesitate": 0.3, "p_long": 0.0, "p_empty": 0.0}
    server = ThreadedSim(SimConfig(port=0, model="m", seed=11, **knobs), answer_key).start()  # type: ignore[arg-type]
    try:
        config = write_config(
            root / "c.yaml",
            {
                "run": "mixed",
                "budgets": [1024, 2048],
                "tasks": [{"name": "gsm8k", "limit": 16}],
                "models": [{"name": "m", "base_url": server.base_url}],
            },
        )
        assert main(["run", str(config), "--output", str(root / "mixed")]) == 0
    finally:
        server.stop()
    yield root / "mixed"


def _expected(index: Any, label: str) -> int:
    code = index.diagnoses.index(label)
    return sum(
        code in (fixed, retry)
        for fixed, retry in zip(index.row_fixed_diagnosis, index.row_retry_diagnosis, strict=True)
    )


def test_the_index_holds_each_reply_s_diagnosis_as_the_reply_view_does(mixed: Path) -> None:
    from thinkeval.report._collect import collect
    from thinkeval.report._embed import EMBED_LIMITS
    from thinkeval.report._samples import Catalog

    with collect([mixed]) as data:
        catalog = Catalog(data)
        index = catalog.index()
        labels = index["diagnoses"]
        for row in range(len(catalog)):
            views = {v.phase: v.diagnosis for v in catalog.reply_views(row, EMBED_LIMITS)}
            for phase in ("fixed", "retry"):
                code = int(index[f"row_{phase}_diagnosis"][row])
                assert views.get(phase) == (labels[code] if code >= 0 else None), (row, phase)
    found = {labels[c] for c in index["row_fixed_diagnosis"].tolist() if c >= 0}
    assert {"loop", "progressing"} <= found, found
    report = build_report([mixed], resamples=100)
    assert report.browser is not None
    shown = report.browser.index
    assert shown.diagnoses == labels and len(shown.row_fixed_diagnosis) == len(catalog)
    # Finished replies carry no diagnosis.
    finished = [
        r for r, s in enumerate(shown.row_fixed) if shown.statuses[s] in ("correct", "wrong")
    ]
    assert finished and all(shown.row_fixed_diagnosis[r] == -1 for r in finished)


@pytest.mark.parametrize("where", ["file", "served"])
def test_the_diagnosis_filter_lists_the_replies_with_the_label(
    browser: Browser, mixed: Path, tmp_path: Path, where: str
) -> None:
    report = build_report([mixed], resamples=100)
    assert report.browser is not None
    index = report.browser.index
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    with viewing(mixed) if where == "served" else _nothing(page_file.as_uri()) as url:
        page = open_samples(browser, url)
        options = page.locator("#f-diagnosis option").all_inner_texts()
        assert options == ["any", *index.diagnoses]
        loops = _expected(index, "loop")
        assert loops > 0
        assert matches(page) == len(index.row_question)
        choose(page, diagnosis="loop")
        assert matches(page) == loops
        for card in page.locator("#sample-list article").all():
            assert card.locator(".badge.diagnosis-loop").count() >= 1
        assert "diagnosis=loop" in page.url  # the view lives in the URL
        choose(page, diagnosis="progressing")
        assert matches(page) == _expected(index, "progressing")
        choose(page, diagnosis="")
        assert matches(page) == len(index.row_question)


class _nothing:
    """A context manager yielding `url` (the report file needs no server)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __enter__(self) -> str:
        return self.url

    def __exit__(self, *exc: object) -> None:
        return None


def _index(run: Path) -> dict[str, list[int]]:
    with collect([run]) as data:
        index = Catalog(data).index()
        return {k: index[k].tolist() for k in ("row_fixed_diagnosis", "row_retry_diagnosis")}


def test_each_unfinished_reply_is_diagnosed_once(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report whose summary is counted again diagnoses each unfinished reply once: the
    sample index reads the counting pass's labels instead of diagnosing them a second time."""
    looping = Path(shutil.copytree(mixed, tmp_path / "copy"))
    with_summary = _index(looping)
    summary = looping / "summary.json"
    assert summary.is_file() and summary.parent == tmp_path / "copy"
    summary.unlink()  # the report counts the journal again, diagnosis included
    calls: Counter[str] = Counter()

    def counted(where: str) -> Any:
        def diagnose(*args: Any, **kwargs: Any) -> diagnosis.Diagnosis:
            calls[where] += 1
            return diagnosis.diagnose(*args, **kwargs)

        return diagnose

    monkeypatch.setattr(counts, "diagnose", counted("pass"))
    monkeypatch.setattr(_samples_diagnosis, "diagnose", counted("index"))
    fresh = _index(looping)
    assert fresh == with_summary  # the same labels, wherever they were read
    labelled = sum(c >= 0 for column in fresh.values() for c in column)
    assert labelled > 4 and calls["pass"] >= labelled, (labelled, calls)
    assert calls["index"] == 0, calls
