"""The report as one HTML page: tables, inline SVG plots, run context and a sample browser.

Two pages come from here. `render_html` writes the self-contained file: nothing is fetched (CSS
and JavaScript inline, plots inline SVG), a Content-Security-Policy forbids every request and
every script or style but the page's own (pinned by hash), and a bounded choice of samples is
embedded (`_embed`). `thinkeval view` serves the same page with `served=True`: no samples in
it, and the page's script may fetch them from the server it came from, and nothing else.

Model output never becomes markup: sample data is JSON in a `<script type="application/json">`
block with `<`, `>` and `&` written as `\\u003c` etc., so no reply can close that block, and the
page's script shows it with `textContent` only. Everything else that came from a run (model
names, subjects, cards) is HTML-escaped here.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape
from importlib import resources
from typing import Any

import msgspec
import orjson

from thinkeval.report._format import Block, Section, Table
from thinkeval.report._model import Report
from thinkeval.report._model_samples import Browser
from thinkeval.report._section import ReportSection
from thinkeval.report._tables import header_lines, shown_sections

# The page's script, in reading order; joined into one function so they share its scope.
SCRIPTS = ("page_state.js", "page_source.js", "page_cards.js", "page_export.js", "page.js")


def _asset(name: str) -> str:
    return resources.files("thinkeval.report").joinpath(name).read_text(encoding="utf-8")


def page_script() -> str:
    """The browser script: every part inside one strict-mode function."""
    body = "\n".join(_asset(name) for name in SCRIPTS)
    return f'(function () {{\n"use strict";\n{body}\n}}());\n'


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def inert_json(data: Any) -> str:
    """JSON that is safe inside a `<script>` element: no `<`, `>` or `&` survives as such.

    >>> inert_json({"c": "</script><b>&"})
    '{"c":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    if isinstance(data, msgspec.Struct):
        text = msgspec.json.encode(data).decode("utf-8")
    else:
        text = orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def browser_payload(browser: Browser) -> dict[str, Any]:
    """The embedded sample data, as the page's script reads it (see page_source.js)."""
    return {
        "mode": "embedded",
        "index": msgspec.to_builtins(browser.index),
        "questions": msgspec.to_builtins(browser.questions),
        "rows": msgspec.to_builtins(browser.rows),
        "exemplars": browser.exemplars,
    }


def _table(table: Table) -> str:
    def cls(i: int) -> str:
        return ' class="num"' if table.numeric[i] else ""

    def content(row: int, column: int, text: str) -> str:
        href = table.links.get((row, column))
        if href is None:
            return escape(text)
        return f'<a href="{escape(href)}">{escape(text)}</a>'

    head = "".join(f"<th{cls(i)}>{escape(c)}</th>" for i, c in enumerate(table.columns))
    body = "".join(
        ('<tr class="warn">' if r in table.warn else "<tr>")
        + "".join(f"<td{cls(i)}>{content(r, i, c)}</td>" for i, c in enumerate(row))
        + "</tr>"
        for r, row in enumerate(table.rows)
    )
    opening = '<table class="wrap">' if table.wrap else "<table>"
    return (
        f'<div class="scroll">{opening}<thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        "</table></div>"
    )


def _block(block: Block) -> str:
    parts = []
    if block.heading is not None:
        parts.append(f"<h3>{escape(block.heading)}</h3>")
    if block.text is not None:
        parts.append(f"<p>{escape(block.text)}</p>")
    if block.bullets:
        items = "".join(f"<li>{escape(b)}</li>" for b in block.bullets)
        parts.append(f'<ul class="sentences">{items}</ul>')
    if block.table is not None:
        parts.append(_table(block.table))
    return "".join(parts)


def _section(plugin: ReportSection[Any], section: Section, report: Report) -> str:
    parts = [
        f'<section id="{section.key}"><h2>{escape(section.title)}</h2>',
        f'<p class="intro">{escape(section.intro)}</p>',
    ]
    if plugin.plots is not None:
        parts.append(plugin.plots(report))
    parts.extend(_block(b) for b in section.blocks)
    if plugin.after is not None:
        parts.append(plugin.after(report))
    parts.append("</section>")
    return "".join(parts)


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _keep(limits: dict[str, tuple[int, int]], kind: str) -> str:
    head, tail = limits[kind]
    return f"its first {head:,} and last {tail:,} characters"


def embedded_text(report: Report) -> str:
    """What the file holds of the samples and how to see the rest, in plain sentences."""
    browser = report.browser
    assert browser is not None
    view = "thinkeval view " + " ".join(run.path for run in report.runs)
    rows, questions = len(browser.index.row_question), len(browser.questions)
    limits = browser.limits
    shortened = (
        f"Long texts are shortened: a reasoning to {_keep(limits, 'reasoning')}, a reply's "
        f"content to {_keep(limits, 'content')}, a prompt to {_keep(limits, 'prompt')}, with a "
        "marker saying how many characters were left out; search and export see the shortened "
        "texts. The journal keeps every reply whole."
    )
    if browser.complete:
        held = (
            f"This file holds every sample: {_count(questions, 'sample', 'samples')}, "
            f"{_count(rows, 'model reply', 'model replies')}."
        )
        return f"{held} {shortened} To see them whole: {view}"
    kinds = "; ".join(f"{p.embedded:,} of the {p.total:,} samples {p.kind}" for p in browser.parts)
    return (
        f"This file holds {questions:,} of the {browser.total_questions:,} samples "
        f"({rows:,} of {browser.total_rows:,} model replies, every model's reply to each chosen "
        f"sample), so that it stays quick to open and small enough to share: {kinds}. It takes "
        f"them in that order until {browser.budget_bytes:,} bytes of sample data (filters, "
        f"counts and exports below cover the samples held here). {shortened} To browse, search "
        f"and export every sample, run: {view}"
    )


def _samples_section(report: Report, served: bool, title: str) -> str:
    if served:
        held = (
            "Served by thinkeval view: every sample of the runs, each page read from the journal "
            "as you open it; search covers the whole prompt, every reply's content and the gold "
            "answers, and export writes the filtered samples whole."
        )
    else:
        held = embedded_text(report)
    return _asset("samples.html").replace("{title}", escape(title)).replace("{held}", escape(held))


def render_html(report: Report, *, served: bool = False) -> str:
    """The report as one HTML page.

    By default the self-contained file (needs `report.browser`); with `served=True` the page
    `thinkeval view` serves, whose script loads the samples from that server.

    >>> page = render_html(build_report([Path("runs/demo")]))  # doctest: +SKIP
    """
    css = _asset("page.css")
    js = page_script()
    # The served page may fetch from the server it came from, and export through it.
    fetch = "connect-src 'self'; form-action 'self'" if served else "form-action 'none'"
    policy = (
        "default-src 'none'; "
        f"style-src 'sha256-{_sha256(css)}'; script-src 'sha256-{_sha256(js)}'; "
        f"base-uri 'none'; {fetch}"
    )
    runs = ", ".join(run.name for run in report.runs)
    listed = shown_sections(report)
    samples_title = f"{len(listed) + 1}. Samples"
    toc = "".join(f'<a href="#{s.key}">{escape(s.title)}</a>' for _, s in listed)
    toc += f'<a href="#samples">{escape(samples_title)}</a>'
    notes = ""
    if report.notes:
        items = "".join(f"<li>{escape(n)}</li>" for n in report.notes)
        notes = f'<section id="notes"><h2>Notes</h2><ul class="notes">{items}</ul></section>'
    lines = header_lines(report)
    banner = ""
    if report.simulated:
        banner = f'<p class="banner simulated">{escape(lines.pop(0))}</p>'
    if not report.complete:
        banner += (
            '<p class="banner incomplete">INCOMPLETE: some samples have no reply (requests that '
            "failed, or not asked yet); the accuracies marked incomplete count them as not "
            'correct. See the <a href="#notes">notes</a>.</p>'
        )
    meta = "".join(f"<li>{escape(line)}</li>" for line in lines)
    data: Any = {"mode": "served"} if served else browser_payload(_browser(report))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>thinkeval report · {escape(runs)}</title>"
        f"<style>{css}</style></head>\n<body>"
        f'<header><h1>thinkeval report</h1>{banner}<ul class="meta">{meta}</ul></header>'
        f"<nav>{toc}</nav>\n<main>{notes}{''.join(_section(p, s, report) for p, s in listed)}\n"
        f"{_samples_section(report, served, samples_title)}</main>\n"
        '<script type="application/json" id="thinkeval-samples">'
        f"{inert_json(data)}</script>\n"
        f"<script>{js}</script>\n</body></html>\n"
    )


def _browser(report: Report) -> Browser:
    if report.browser is None:
        raise ValueError("this report was built without sample data (embed_bytes=None)")
    return report.browser
