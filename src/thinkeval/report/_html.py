"""The report as one self-contained HTML page: tables, inline SVG plots, a sample browser.

Nothing is fetched: CSS and JavaScript are inlined, plots are inline SVG, and a
Content-Security-Policy forbids every network request and every script or style but the
page's own (pinned by hash). Model output never becomes markup: the per-sample data is JSON in
a `<script type="application/json">` block with `<`, `>` and `&` written as `\\u003c` etc.,
so no reply can close that block, and the page's script shows it with `textContent` only.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape
from importlib import resources
from typing import Any

import orjson

from thinkeval.records import STATUSES
from thinkeval.report import _svg
from thinkeval.report._model import AttemptView, Report
from thinkeval.report._tables import Block, Section, Table, header_lines, sections

# Long texts are shortened in the page so that a run of thousands of thinking replies stays a
# file a browser opens quickly; the full texts stay in the journal.
REASONING_HEAD, REASONING_TAIL = 3000, 1500
CONTENT_HEAD, CONTENT_TAIL = 16000, 4000
PROMPT_HEAD, PROMPT_TAIL = 16000, 4000
# Shortening that would save less than this is not worth the marker.
MIN_OMITTED = 500

OUTCOME_COLORS = {
    "correct": "#3a9a4a",
    "wrong": "#d1493f",
    "no_answer": "#f0a33a",
    "empty": "#a3a3a3",
    "unfinished": "#8a63c4",
    "error": "#2b2b2b",
    "pending": "#d5dbe3",
}
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


def _asset(name: str) -> str:
    return resources.files("thinkeval.report").joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _shorten(text: str | None, head: int, tail: int) -> str | list[Any] | None:
    """`text`, or `[first head chars, number omitted, last tail chars]` when it is long."""
    if text is None or len(text) <= head + tail + MIN_OMITTED:
        return text
    return [text[:head], len(text) - head - tail, text[-tail:]]


def inert_json(data: Any) -> str:
    """JSON that is safe inside a `<script>` element: no `<`, `>` or `&` survives as such.

    >>> inert_json({"c": "</script><b>&"})
    '{"c":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    text = orjson.dumps(data).decode("utf-8")
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _attempt(a: AttemptView) -> dict[str, Any]:
    return {
        "ph": a.phase,
        "b": a.budget,
        "mt": a.max_tokens,
        "f": a.finish_reason,
        "ct": a.completion_tokens,
        "rt": a.reasoning_tokens,
        "lat": a.latency_s,
        "ttft": a.ttft_s,
        "e": a.error,
        "s": a.strict,
        "n": a.lenient,
        "c": _shorten(a.content, CONTENT_HEAD, CONTENT_TAIL),
        "r": _shorten(a.reasoning, REASONING_HEAD, REASONING_TAIL),
        "rl": len(a.reasoning) if a.reasoning is not None else 0,
    }


def browser_payload(report: Report) -> dict[str, Any]:
    """The sample browser's data, compact: each question and exemplar set stored once."""
    tasks = {task: i for i, task in enumerate(report.tasks)}
    models = {model: i for i, model in enumerate(report.models)}
    exemplar_sets: dict[bytes, int] = {}
    questions: list[dict[str, Any]] = []
    index: dict[tuple[str, str], int] = {}
    for q in report.browser.questions:
        shots = -1
        if q.exemplars:
            key = orjson.dumps(q.exemplars)
            shots = exemplar_sets.setdefault(key, len(exemplar_sets))
        index[(q.task, q.sample_id)] = len(questions)
        questions.append(
            {
                "t": tasks[q.task],
                "id": q.sample_id,
                "s": q.subset,
                "g": q.gold,
                "p": _shorten(q.prompt, PROMPT_HEAD, PROMPT_TAIL),
                "x": shots,
            }
        )
    rows = [
        {
            "q": index[(s.task, s.sample_id)],
            "m": models[s.model],
            "v": s.final,
            "l": int(s.lenient_final),
            "a": [_attempt(a) for a in s.attempts],
        }
        for s in report.browser.samples
    ]
    return {
        "models": report.models,
        "tasks": report.tasks,
        "statuses": [*STATUSES, "error", "pending"],
        "exemplars": [orjson.loads(key) for key in exemplar_sets],
        "questions": questions,
        "rows": rows,
    }


def _table(table: Table) -> str:
    def cls(i: int) -> str:
        return ' class="num"' if table.numeric[i] else ""

    head = "".join(f"<th{cls(i)}>{escape(c)}</th>" for i, c in enumerate(table.columns))
    body = "".join(
        "<tr>" + "".join(f"<td{cls(i)}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in table.rows
    )
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
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


def _figure(caption: str, svg: str) -> str:
    return f"<figure><figcaption>{escape(caption)}</figcaption>{svg}</figure>"


def _outcome_plots(report: Report) -> str:
    figures = []
    statuses = [*STATUSES, "error", "pending"]
    for task in report.tasks:
        rows = [r for r in report.breakdown if r.task == task and r.subject is None]
        labels = []
        values: dict[str, list[float]] = {s: [] for s in statuses}
        for row in rows:
            for phase in ("fixed", "adaptive"):
                block = row.counts.fixed if phase == "fixed" else row.counts.adaptive
                labels.append(f"{row.model} · {phase}")
                for status in statuses:
                    values[status].append(getattr(block, status))
        layers = [_svg.Series(s, OUTCOME_COLORS[s], values[s]) for s in statuses]
        figures.append(_figure(task, _svg.stacked_bars(f"Outcomes on {task}", labels, layers)))
    return f'<div class="plots">{"".join(figures)}</div>'


def _curve_plots(report: Report) -> str:
    b1, b2 = report.budgets
    figures = []
    for task in report.tasks:
        curves = [c for c in report.curves if c.task == task]
        if not curves:
            continue
        series = [
            _svg.Series(
                c.model,
                MODEL_COLORS[report.models.index(c.model) % len(MODEL_COLORS)],
                [k / c.total if c.total else 0.0 for k in c.grid_correct],
            )
            for c in curves
        ]
        # Evenly spaced ticks: the table's budgets crowd together at the left of a long axis.
        ticks = [round(b2 * i / 4) for i in range(5)]
        svg = _svg.step_chart(
            f"Accuracy by budget on {task}",
            curves[0].grid,
            series,
            x_ticks=ticks,
            x_marks=[(b1, f"B1 {b1}"), (b2, f"B2 {b2}")],
        )
        figures.append(_figure(task, svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def _histogram_plots(report: Report) -> str:
    b1, b2 = report.budgets
    figures = []
    for h in report.histograms:
        layers = [
            _svg.Series("fixed", PHASE_COLORS["fixed"], h.fixed),
            _svg.Series("retry", PHASE_COLORS["retry"], h.retry),
        ]
        svg = _svg.histogram(
            f"Completion tokens of {h.model} on {h.task}",
            h.edges,
            layers,
            x_marks=[(b1, str(b1)), (b2, str(b2))],
        )
        figures.append(_figure(f"{h.model} · {h.task}", svg))
    return f'<div class="plots">{"".join(figures)}</div>'


def _section(section: Section, report: Report) -> str:
    plots = {
        "outcomes": _outcome_plots,
        "curve": _curve_plots,
        "usage": _histogram_plots,
    }
    parts = [
        f'<section id="{section.key}"><h2>{escape(section.title)}</h2>',
        f'<p class="intro">{escape(section.intro)}</p>',
    ]
    if section.key in plots:
        parts.append(plots[section.key](report))
    parts.extend(_block(b) for b in section.blocks)
    parts.append("</section>")
    return "".join(parts)


_BROWSER = f"""<section id="samples"><h2>8. Samples</h2>
<p class="intro">Every model's reply to every sample: the prompt (the last user message; few-shot
exemplars are folded away), the reasoning, the content, the finish reason, the tokens and the
strict and lenient verdicts side by side. Filter by model, task and adaptive strict verdict. To
keep this page light, a reasoning longer than {REASONING_HEAD + REASONING_TAIL + MIN_OMITTED:,}
characters shows its first {REASONING_HEAD:,} and last {REASONING_TAIL:,} characters with a
marker saying how many were left out, and a content or prompt longer than
{CONTENT_HEAD + CONTENT_TAIL + MIN_OMITTED:,} characters its first {CONTENT_HEAD:,} and last
{CONTENT_TAIL:,}; the run's journal keeps every reply whole.</p>
<div class="filters">
<label>model<select id="filter-model"><option value="">all models</option></select></label>
<label>task<select id="filter-task"><option value="">all tasks</option></select></label>
<label>adaptive verdict<select id="filter-verdict"><option value="">any verdict</option></select>
</label>
<label>lenient vs strict<select id="filter-lenient"><option value="">any</option>
<option value="lenient-only">lenient correct, strict not</option>
<option value="strict-only">strict correct, lenient not</option></select></label>
<label>retried<select id="filter-retried"><option value="">any</option>
<option value="yes">retried at B2</option><option value="no">not retried</option></select>
</label>
<label>sample id contains<input id="filter-id" type="search"></label>
</div>
<div class="pager"><button id="page-prev" type="button">← previous</button>
<button id="page-next" type="button">next →</button><span id="sample-count"></span></div>
<div id="sample-list"></div>
</section>"""


def render_html(report: Report) -> str:
    """The report as one HTML page that opens without network access.

    >>> page = render_html(build_report([Path("runs/demo")]))  # doctest: +SKIP
    """
    css = _asset("page.css")
    js = _asset("page.js")
    policy = (
        "default-src 'none'; "
        f"style-src 'sha256-{_sha256(css)}'; script-src 'sha256-{_sha256(js)}'; "
        "base-uri 'none'; form-action 'none'"
    )
    runs = ", ".join(run.name for run in report.runs)
    sections_html = [_section(s, report) for s in sections(report)]
    toc = (
        "".join(f'<a href="#{s.key}">{escape(s.title)}</a>' for s in sections(report))
        + '<a href="#samples">8. Samples</a>'
    )
    notes = ""
    if report.notes:
        items = "".join(f"<li>{escape(n)}</li>" for n in report.notes)
        notes = f'<section id="notes"><h2>Notes</h2><ul class="notes">{items}</ul></section>'
    meta = "".join(f"<li>{escape(line)}</li>" for line in header_lines(report))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>thinkeval report · {escape(runs)}</title>"
        f"<style>{css}</style></head>\n<body>"
        f'<header><h1>thinkeval report</h1><ul class="meta">{meta}</ul></header>'
        f"<nav>{toc}</nav>\n<main>{notes}{''.join(sections_html)}\n{_BROWSER}</main>\n"
        '<script type="application/json" id="thinkeval-samples">'
        f"{inert_json(browser_payload(report))}</script>\n"
        f"<script>{js}</script>\n</body></html>\n"
    )
