"""`thinkeval view` over HTTP: what it serves, what it refuses, and that it writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from browsing import browse_run, viewing
from test_report_runs import boolq_sample, make_run, reply
from thinkeval.report.viewer import Viewer
from thinkeval.report.viewer.search import Searcher


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _post(url: str, fields: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    body = urllib.parse.urlencode(fields).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return browse_run(tmp_path_factory.mktemp("viewer"))


def test_serves_the_page_the_index_texts_search_and_export_and_writes_nothing(
    run: Path,
) -> None:
    before = _snapshot(run)
    with viewing(run) as url:
        status, page = _get(url)
        assert status == 200 and b"connect-src &#x27;self&#x27;" in page
        assert b'"mode":"served"' in page
        status, body = _get(url + "api/index")
        index = json.loads(body)
        assert status == 200 and len(index["row_question"]) == 48
        assert index["models"] == ["alpha", "beta"]
        status, body = _get(url + "api/rows?r=0-1,47")
        texts = json.loads(body)
        assert sorted(texts["rows"], key=int) == ["0", "1", "47"]
        assert texts["rows"]["0"][0]["c"].startswith("Natalia sold 72 clips. </script>")
        assert list(texts["exemplars"]) == [texts["questions"]["0"]["x"]]
        status, body = _get(url + "api/search?q=ZeBrA")
        assert json.loads(body) == {"rows": [22]}  # alpha's gsm8k/11
        status, headers, exported = _post(url + "api/export", {"format": "jsonl", "rows": "22"})
        assert status == 200 and "attachment" in headers["Content-Disposition"]
        assert json.loads(exported)["replies"][0]["content"].startswith("Look both ways")
    assert _snapshot(run) == before  # read-only: nothing written, nothing touched


def test_refuses_other_hosts_bad_rows_and_anything_but_its_routes(run: Path) -> None:
    with viewing(run) as url:
        port = urllib.parse.urlsplit(url).port
        assert _get(url, {"Host": "attacker.example"})[0] == 403  # DNS rebinding
        assert _get(url, {"Host": f"localhost:{port}"})[0] == 200
        assert _get(url + "api/rows?r=48")[0] == 400
        assert _get(url + "api/rows?r=0-600")[0] == 400  # at most 500 a page
        assert _get(url + "api/rows?r=x")[0] == 400
        assert _get(url + "config.json")[0] == 404  # no file of the run is served as such
        assert _get(url + "../config.json")[0] == 404
        assert _post(url + "api/export", {"format": "xml", "rows": "0"})[0] == 400


def test_search_matches_question_gold_and_counted_content_only(tmp_path: Path) -> None:
    """A superseded error or a reply outside the run's selection never matches."""
    samples = [boolq_sample(i) for i in range(3)]
    stray = reply("m", boolq_sample(9), "fixed", "correct", content="A needle outside")
    attempts = [
        reply("m", samples[0], "fixed", "correct", content='A\\nthe Needle\u00e9 "quoted"'),
        reply("m", samples[1], "fixed", "error"),
        reply("m", samples[1], "fixed", "correct"),
        reply("m", samples[2], "fixed", "wrong"),
        stray,
    ]
    run = make_run(tmp_path / "search", {"boolq": samples}, attempts, ["m"])
    viewer = Viewer([run], resamples=100)
    try:
        searcher = Searcher(viewer.catalog)
        assert searcher.search('NEEDLEÉ "QUOTED"').tolist() == [0]  # JSON escapes, any case
        assert searcher.search("a\\nthe").tolist() == [0]  # a backslash as written
        assert searcher.search("needle outside").tolist() == []  # not one of the run's samples
        assert searcher.search("Persian").tolist() == [0]  # boolq/0's passage
        assert searcher.search("windows movie maker").tolist() == [2]
        assert searcher.search("").tolist() == []
    finally:
        viewer.close()


def test_two_runs_combine_and_a_busy_port_is_a_clear_error(tmp_path: Path) -> None:
    samples = [boolq_sample(i) for i in range(4)]
    first = make_run(
        tmp_path / "one",
        {"boolq": samples},
        [reply("w8a8", s, "fixed", "correct") for s in samples],
        ["w8a8"],
    )
    second = make_run(tmp_path / "two", {"boolq": samples},
                      [reply("bf16", s, "fixed", "wrong") for s in samples], ["bf16"])  # fmt: skip
    with viewing(first, second) as url:
        index = json.loads(_get(url + "api/index")[1])
        assert index["models"] == ["w8a8", "bf16"] and len(index["row_question"]) == 8
        port = str(urllib.parse.urlsplit(url).port)
        busy = subprocess.run(
            [sys.executable, "-m", "thinkeval", "view", str(first), "--port", port],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert busy.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in busy.stderr and "Traceback" not in busy.stderr


def test_a_directory_that_is_no_run_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "thinkeval", "view", str(tmp_path), "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "not a thinkeval run directory" in done.stderr and "Traceback" not in done.stderr
