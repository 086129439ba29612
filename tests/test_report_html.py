"""The HTML report: self-contained, inert model output, a working sample browser."""

from __future__ import annotations

import base64
import doctest
import hashlib
import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from test_report_runs import (
    B1,
    B2,
    boolq_sample,
    ceval_sample,
    gsm8k_sample,
    make_run,
    reply,
)
from thinkeval.report import _html, build_report, render_html

ATTACK_SCRIPT = "</script><script>alert(1)</script>"
ATTACK_IMG = "<img src=x onerror=alert(1)>"
DATA_BLOCK = re.compile(
    r'<script type="application/json" id="thinkeval-samples">(.*?)</script>', re.DOTALL
)


def _hostile_run(tmp_path: Path) -> Path:
    """Two models on three tasks; replies, reasoning and a prompt carry markup and scripts."""
    g = [gsm8k_sample(i) for i in range(4)]
    b = [boolq_sample(i) for i in range(3)]
    c = [ceval_sample("law", 0), ceval_sample("accountant", 1)]
    hostile = f"Natalia sold 72 clips. {ATTACK_SCRIPT} {ATTACK_IMG}\nThe answer is 72"
    long_reasoning = "Okay, let me recount the clips sold in April and May. " * 400
    attempts = []
    for model in ("qwen3-8b-w8a8", "qwen3-8b-bf16"):
        attempts += [
            reply(
                model,
                g[0],
                "fixed",
                "correct",
                800,
                content=hostile,
                reasoning=f"{ATTACK_IMG} thinking {ATTACK_SCRIPT}",
            ),
            reply(model, g[1], "fixed", "unfinished", reasoning=long_reasoning),
            reply(model, g[1], "retry", "correct", 5000, reasoning=long_reasoning * 2),
            reply(model, g[2], "fixed", "wrong", 1200),
            reply(model, g[3], "fixed", "error"),
            *(reply(model, s, "fixed", "correct", 150) for s in b),
            reply(model, c[0], "fixed", "correct", 900),
            reply(model, c[1], "fixed", "no_answer", 1000),
        ]
    samples = {"gsm8k": g, "boolq": b, "ceval": c}
    return make_run(tmp_path / "hostile", samples, attempts, ["qwen3-8b-w8a8", "qwen3-8b-bf16"])


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    run = _hostile_run(tmp_path_factory.mktemp("html"))
    return render_html(build_report([run], resamples=2000))


def _outside_data(page: str) -> str:
    return DATA_BLOCK.sub("", page)


def test_model_output_never_appears_raw(page: str) -> None:
    assert ATTACK_SCRIPT not in page
    assert ATTACK_IMG not in page
    assert "<img" not in page
    assert page.count("<script") == 2  # the data block and the page's own script
    data = DATA_BLOCK.search(page)
    assert data is not None
    assert "<" not in data.group(1) and ">" not in data.group(1) and "&" not in data.group(1)
    # The escaped text still decodes to exactly what the model wrote.
    payload = json.loads(data.group(1))
    contents = [a["c"] for row in payload["rows"] for a in row["a"]]
    assert any(ATTACK_SCRIPT in c and ATTACK_IMG in c for c in contents if isinstance(c, str))


def test_sample_data_is_rendered_with_text_content_only() -> None:
    script = (Path(_html.__file__).parent / "page.js").read_text(encoding="utf-8")
    assert "innerHTML" not in script and "outerHTML" not in script
    assert "insertAdjacentHTML" not in script and "document.write" not in script
    assert "eval(" not in script and "new Function" not in script
    assert "textContent" in script


def test_names_placed_in_html_are_escaped(tmp_path: Path) -> None:
    model = "m<b>&x"
    run = make_run(
        tmp_path / "names",
        {"boolq": [boolq_sample(0)]},
        [reply(model, boolq_sample(0), "fixed", "correct")],
        [model],
    )
    html = render_html(build_report([run]))
    assert "m<b>" not in html
    assert "m&lt;b&gt;&amp;x" in html


def test_no_network_references(page: str) -> None:
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)
    assert not re.search(r"@import|url\(", page, re.I)
    outside = _outside_data(page)
    assert "http://" not in outside and "https://" not in outside
    assert re.findall(r'href="([^"]*)"', page) == [
        "#headline",
        "#outcomes",
        "#best",
        "#lenient",
        "#pairs",
        "#curve",
        "#usage",
        "#samples",
    ]


def test_content_security_policy_pins_the_inline_script_and_style(page: str) -> None:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None
    text = policy.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in text
    script = _outside_data(page).split("<script>")[1].split("</script>")[0]
    style = page.split("<style>")[1].split("</style>")[0]
    for body in (script, style):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in text


def test_long_texts_are_shortened_with_a_visible_marker(page: str) -> None:
    data = DATA_BLOCK.search(page)
    assert data is not None
    payload = json.loads(data.group(1))
    reasonings = [a["r"] for row in payload["rows"] for a in row["a"] if a["r"] is not None]
    shortened = [r for r in reasonings if isinstance(r, list)]
    assert shortened, "the 22,000-character reasoning should be shortened"
    total = len("Okay, let me recount the clips sold in April and May. " * 400)
    first = next(r for r in shortened if len(r[0]) + r[1] + len(r[2]) == total)
    assert (len(first[0]), len(first[2])) == (_html.REASONING_HEAD, _html.REASONING_TAIL)
    assert first[1] == total - _html.REASONING_HEAD - _html.REASONING_TAIL
    assert "characters omitted" in page  # the page's script writes the marker
    assert "shows its first 3,000 and last 1,500 characters" in page


def test_browser_payload_covers_every_model_and_sample(page: str) -> None:
    data = DATA_BLOCK.search(page)
    assert data is not None
    payload = json.loads(data.group(1))
    assert payload["models"] == ["qwen3-8b-w8a8", "qwen3-8b-bf16"]
    assert payload["tasks"] == ["gsm8k", "boolq", "ceval"]
    assert len(payload["questions"]) == 9
    assert len(payload["rows"]) == 18
    assert len(payload["exemplars"]) == 1  # the gsm8k few-shot turns, stored once
    gsm8k = payload["questions"][0]
    assert gsm8k["p"].startswith("Question: Natalia sold clips") and gsm8k["x"] == 0
    assert payload["questions"][7]["s"] == "law"
    finals = {(row["m"], payload["questions"][row["q"]]["id"]): row["v"] for row in payload["rows"]}
    assert finals[(0, "gsm8k/1")] == "correct" and finals[(1, "gsm8k/3")] == "error"
    retried = next(r for r in payload["rows"] if payload["questions"][r["q"]]["id"] == "gsm8k/1")
    assert [a["ph"] for a in retried["a"]] == ["fixed", "retry"]
    assert retried["a"][0]["s"][0] == "unfinished" and retried["a"][1]["s"][0] == "correct"
    assert retried["a"][1]["n"][0] == "correct"  # lenient beside strict


def test_plots_are_inline_svg(page: str) -> None:
    # Outcome bars and budget curves per task, one token histogram per model and task.
    assert page.count("<svg") == 3 + 3 + 2 * 3
    assert "xmlns" not in page
    assert f"B1 {B1}" in page and f"B2 {B2}" in page


def test_html_doctests() -> None:
    result = doctest.testmod(_html)
    assert result.failed == 0 and result.attempted > 0


def _png_is_nontrivial(path: Path) -> tuple[int, int, int]:
    """Width, height and the number of distinct byte values in the decoded pixel rows."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    chunks = []
    offset = 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        if kind == b"IDAT":
            chunks.append(data[offset + 8 : offset + 8 + length])
        offset += 12 + length
    pixels = zlib.decompress(b"".join(chunks))
    return width, height, len(set(pixels))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_chromium_renders_the_report(tmp_path: Path) -> None:
    """Open the report in headless Chromium: screenshot it and check the script ran under CSP.

    Skips where `chromium` is not on PATH (`apt-get install chromium`); every other test runs
    everywhere. This is the automated half of the browser check in docs/reports.md.
    """
    run = _hostile_run(tmp_path)
    report_file = tmp_path / "report.html"
    report_file.write_text(render_html(build_report([run], resamples=2000)), encoding="utf-8")
    chromium = [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
    ]
    url = report_file.as_uri()
    png = tmp_path / "report.png"
    subprocess.run(
        [*chromium, f"--screenshot={png}", "--window-size=1400,2400", url],
        capture_output=True,
        timeout=120,
        check=True,
    )
    width, height, distinct = _png_is_nontrivial(png)
    assert (width, height) == (1400, 2400)
    assert png.stat().st_size > 50_000
    assert distinct > 50  # text, tables and plots, not a blank page

    dom = subprocess.run(
        [*chromium, "--dump-dom", url], capture_output=True, timeout=120, check=True, text=True
    )
    assert "violates the following Content Security Policy" not in dom.stderr
    assert "18 of 18 model replies" in dom.stdout  # the browser script ran and rendered
    assert dom.stdout.count('<article class="sample">') == 18
    assert "<img" not in dom.stdout  # the hostile reply stayed text
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom.stdout
