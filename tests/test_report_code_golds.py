"""A code task's long golds in the report and the viewer: a made-up LiveCodeBench release with
large tests (tests/test_code_journal.py). The report's columns and the sample index keep a long
gold by reference (its start, length and digest), never whole; it is read back from the samples
file only where a reply is scored again (its verdicts were judged against other tests), and the
report is then the same. The viewer's export writes the reference, or the tests whole when
asked (`golds=full`)."""

from __future__ import annotations

import json
from pathlib import Path

from browsing import viewing
from fakehub import FakeHub
from test_code_journal import large_hub, lcb_run, rewrite_journal
from test_report_viewer import _post
from thinkeval.records import gold_digest
from thinkeval.report import build_report, render_markdown
from thinkeval.report._collect import collect
from thinkeval.report._embed import EMBED_LIMITS
from thinkeval.report._samples import Catalog
from thinkeval.report.viewer.export import export, record

__all__ = ["large_hub"]  # the fixture, imported for pytest

TASK = "livecodebench_v1"
SHOWN = 500  # no string the report keeps per sample is longer


def _report(run_dir: Path) -> str:
    return render_markdown(build_report([run_dir], seed=1, resamples=100))


def test_the_report_keeps_long_golds_by_reference_and_reads_them_back_only_to_rescore(
    large_hub: FakeHub, tmp_path: Path
) -> None:
    run_dir, golds = lcb_run(tmp_path)
    with collect([run_dir]) as data:
        samples = data.runs[0].samples[TASK]
        kept = samples.golds
        assert len(kept) == 2 and set(kept.long) == {0, 1}  # both problems' tests are long
        for position, sample_id in enumerate(samples.ids):
            gold, shown = golds[sample_id], kept.shown(position)
            assert kept.long[position].digest == gold_digest(gold)
            assert kept.long[position].length == len(gold) > 100 * SHOWN
            assert shown.startswith(gold[:300]) and gold_digest(gold) in shown
            assert f"{len(gold):,} characters" in shown and f"samples/{TASK}.jsonl" in shown
        assert max(map(len, kept.kept)) < SHOWN and kept.keys() == [
            gold_digest(golds[i]) for i in samples.ids
        ]
        catalog = Catalog(data)  # the code reasons of the wrong programs: from the journal
        assert max(map(len, catalog.question_gold)) < SHOWN
        assert catalog.index()["question_gold"] == catalog.question_gold
        views = [catalog.reply_views(row, EMBED_LIMITS) for row in range(len(catalog))]
        assert {view.strict.status for row in views for view in row if view.strict} == {
            "correct", "wrong",
        }  # fmt: skip
        assert kept.reads == 0  # every recorded verdict was current: no gold was read back
        entry = record(catalog, 0)
        assert entry["gold"] == catalog.question_gold[0]
        exported = b"".join(export(catalog, list(range(len(catalog))), "csv")).decode()
        assert all(gold not in exported for gold in golds.values()) and kept.reads == 0
        whole = record(catalog, 0, full_golds=True)["gold"]
        assert whole == golds[catalog.question_id[0]] and kept.reads == 1
    first = _report(run_dir)
    assert "Code: why the wrong programs failed" in first

    # Verdicts judged against other tests are stale: the read model's counting pass scores each
    # reply again in the scoring workers, against its gold as the samples file streams by (one
    # held at a time, none read back by reference), and the report comes out the same.
    rewrite_journal(run_dir, lambda row: {**row, "gold_digest": gold_digest("other tests")})
    with collect([run_dir]) as data:
        kept = data.runs[0].samples[TASK].golds
        assert kept.reads == 0
        assert max(map(len, kept.kept)) < SHOWN
    assert _report(run_dir) == first
    # An older journal holds each attempt's gold inline: its verdicts are current for it.
    rewrite_journal(run_dir, lambda row: {**row, "gold_digest": None,
                                          "gold": golds[row["sample_id"]]})  # fmt: skip
    with collect([run_dir]) as data:
        assert data.runs[0].samples[TASK].golds.reads == 0
    assert _report(run_dir) == first


def test_the_viewer_exports_a_long_gold_by_reference_unless_asked_for_it_whole(
    large_hub: FakeHub, tmp_path: Path
) -> None:
    run_dir, golds = lcb_run(tmp_path)
    with viewing(run_dir) as url:
        status, _, body = _post(url + "api/export", {"format": "jsonl", "rows": "0-1"})
        assert status == 200
        records = [json.loads(line) for line in body.splitlines()]
        for entry in records:
            gold = golds[entry["sample_id"]]
            assert len(entry["gold"]) < SHOWN and gold_digest(gold) in entry["gold"]
        fields = {"format": "jsonl", "rows": "0-1", "golds": "full"}
        status, _, body = _post(url + "api/export", fields)
        assert status == 200 and len(body) > 2 * 100 * SHOWN
        whole = [json.loads(line) for line in body.splitlines()]
        assert [entry["gold"] for entry in whole] == [golds[e["sample_id"]] for e in whole]
        assert [{**e, "gold": None} for e in whole] == [{**e, "gold": None} for e in records]
        status, _, body = _post(url + "api/export", {**fields, "golds": "some"})
        assert status == 400 and b"golds must be full" in body
