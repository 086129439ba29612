"""The HTML report: self-contained, inert model output, a working sample browser."""

from __future__ import annotations

import base64
import doctest
import hashlib
import json
import re
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
from thinkeval.report import _embed, _html, build_report, render_html
from thinkeval.report.sections.pairs import SECTION as PAIRS

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
    contents = [a.get("c") for replies in payload["rows"] for a in replies]
    assert any(ATTACK_SCRIPT in c and ATTACK_IMG in c for c in contents if isinstance(c, str))


def test_sample_data_is_rendered_with_text_content_only() -> None:
    script = _html.page_script()
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
    style = page.split("<style>")[1].split("</style>")[0]
    assert not re.search(r"@import|url\(", style, re.I)
    links = re.findall(r'href="([^"]*)"', page)
    sections = [
        "#headline",
        "#outcomes",
        "#best",
        "#lenient",
        "#pairs",
        "#curve",
        "#usage",
        "#tokens",
    ]
    sections.append("#diagnosis")  # why replies did not finish
    views = [link for link in links if link.startswith("#samples?")]
    assert [link for link in links if link not in views] == [
        "#notes",  # the incomplete banner's
        *sections,
        "#context",
        "#samples",
        "#samples",  # "link to this view", until the page's script sets it
    ]
    assert len(views) == 2 * 6  # A only and B only of one pair, fixed and adaptive, per task


def test_content_security_policy_pins_the_inline_script_and_style(page: str) -> None:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None
    text = policy.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in text and "connect-src" not in text  # the file fetches nothing
    script = _outside_data(page).split("<script>")[1].split("</script>")[0]
    style = page.split("<style>")[1].split("</style>")[0]
    for body in (script, style):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in text


def test_long_texts_are_shortened_with_a_visible_marker(page: str) -> None:
    data = DATA_BLOCK.search(page)
    assert data is not None
    payload = json.loads(data.group(1))
    reasonings = [a["r"] for replies in payload["rows"] for a in replies if "r" in a]
    shortened = [r for r in reasonings if isinstance(r, list)]
    assert shortened, "the 22,000-character reasoning should be shortened"
    total = len("Okay, let me recount the clips sold in April and May. " * 400)
    head, tail = _embed.EMBED_LIMITS.reasoning or (0, 0)
    first = next(r for r in shortened if len(r[0]) + r[1] + len(r[2]) == total)
    assert (len(first[0]), len(first[2])) == (head, tail) == (1000, 500)
    assert first[1] == total - head - tail
    assert "characters omitted" in page  # the page's script writes the marker
    assert "a reasoning to its first 1,000 and last 500 characters" in page


def test_browser_payload_covers_every_model_and_sample(page: str) -> None:
    data = DATA_BLOCK.search(page)
    assert data is not None
    payload = json.loads(data.group(1))
    index = payload["index"]
    assert index["models"] == ["qwen3-8b-w8a8", "qwen3-8b-bf16"]
    assert index["tasks"] == ["gsm8k", "boolq", "ceval"]
    assert len(index["question_id"]) == len(payload["questions"]) == 9
    assert len(index["row_question"]) == len(payload["rows"]) == 18
    assert len(payload["exemplars"]) == 1  # the gsm8k few-shot turns, stored once
    gsm8k = payload["questions"][0]
    assert gsm8k["p"].startswith("Question: Natalia sold clips")
    assert gsm8k["x"] in payload["exemplars"]
    assert index["subjects"][index["question_subject"][7]] == "law"
    statuses = index["statuses"]
    finals = {
        (index["row_model"][r], index["question_id"][q]): statuses[index["row_final"][r]]
        for r, q in enumerate(index["row_question"])
    }
    assert finals[(0, "gsm8k/1")] == "correct" and finals[(1, "gsm8k/3")] == "error"
    retried = payload["rows"][index["row_question"].index(1)]
    assert [a["ph"] for a in retried] == ["fixed", "retry"]
    assert retried[0]["s"][0] == "unfinished" and retried[1]["s"][0] == "correct"
    assert index["scorers"] == ["lenient"]  # the recording scorers beside strict
    assert retried[1]["v"]["lenient"][0] == "correct"  # lenient beside strict, by name
    assert "every sample" in page  # a small run is embedded whole, and the page says so


def test_plots_are_inline_svg(page: str) -> None:
    # Outcome bars and budget curves per task, one token histogram and one reasoning-length
    # ("still thinking") plot per model and task.
    assert page.count("<svg") == 3 + 3 + 2 * 3 + 2 * 3
    assert "xmlns" not in page
    assert f"B1 {B1}" in page and f"B2 {B2}" in page


def test_html_doctests() -> None:
    result = doctest.testmod(_html)
    assert result.failed == 0 and result.attempted > 0


def test_a_large_run_embeds_the_telling_samples_within_the_budget(tmp_path: Path) -> None:
    """Discordant samples first, then those some model got wrong; never past the budget."""
    samples = [gsm8k_sample(i) for i in range(60)]
    attempts = []
    for i, sample in enumerate(samples):
        for model, wrong in (("a", i % 3 == 0), ("b", i % 4 == 0)):
            status = "wrong" if wrong else "correct"
            attempts.append(reply(model, sample, "fixed", status, reasoning="thinking " * 600))
    run = make_run(tmp_path / "large", {"gsm8k": samples}, attempts, ["a", "b"])

    report = build_report([run], resamples=200, embed_bytes=60_000)
    page = render_html(report)

    browser = report.browser
    assert browser is not None
    data = DATA_BLOCK.search(page)
    assert data is not None and len(data.group(1)) <= 60_000
    discordant = {q for p in PAIRS.numbers(report).pairs for q in p.a_only_ids + p.b_only_ids}
    held = set(browser.index.question_id)
    assert 0 < len(held) < len(discordant) and held <= discordant
    assert [(p.total, p.embedded) for p in browser.parts] == [
        (len(discordant), len(held)),
        (30, len(held)),  # 20 samples a got wrong, 15 b did, 5 both
        (30, 0),
    ]
    assert f"This file holds {len(held)} of the 60 samples" in page
    assert "run: thinkeval view" in page

    everything = build_report([run], resamples=200, embed_bytes=1_000_000).browser
    assert everything is not None and everything.complete
