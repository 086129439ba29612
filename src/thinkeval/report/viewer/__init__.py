"""`thinkeval view`: the report of one or more runs, served from 127.0.0.1 with every sample.

The server reads the runs once at start (the same columns a report is built from: a few dozen
bytes per sample, no texts), then serves the report page and, a page at a time, the samples'
texts, read back from the journal by byte offset. Search reads the files afresh each time and
export streams, so memory stays flat whatever the run's size. It serves nothing but what it
computes from the runs: no file path is ever taken from a request, nothing is written, and a
request whose Host is not this address is refused (a web page elsewhere cannot read it through
DNS rebinding).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import orjson
from aiohttp import web
from aiohttp.typedefs import Handler

from thinkeval.errors import ThinkevalError
from thinkeval.report._build import report_of
from thinkeval.report._collect import collect
from thinkeval.report._html import render_html
from thinkeval.report._samples import Catalog, Limits
from thinkeval.report.viewer.export import export
from thinkeval.report.viewer.search import Searcher

HOST = "127.0.0.1"
# Texts the viewer shows are whole up to these bounds, so one absurd reply cannot stall a page.
VIEW_LIMITS = Limits(reasoning=(60_000, 20_000), content=(60_000, 20_000), prompt=(60_000, 20_000))
MOST_ROWS_PER_PAGE = 500
SEARCHES_KEPT = 16
EXPORT_FORMATS = {"jsonl": "application/x-ndjson", "csv": "text/csv; charset=utf-8"}
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


class Viewer:
    """The runs, read once: the page, the sample index, and texts, search and export on demand."""

    def __init__(self, run_dirs: Sequence[Path], seed: int = 0, resamples: int = 10_000) -> None:
        self.data = collect(list(run_dirs))
        try:
            self.catalog = Catalog(self.data)
            report = report_of(self.data, self.catalog, seed, resamples, embed_bytes=None)
            self.page = render_html(report, served=True).encode("utf-8")
        except BaseException:
            self.data.close()
            raise
        self.searcher = Searcher(self.catalog)
        self._searches: dict[str, bytes] = {}

    def close(self) -> None:
        self.data.close()

    def index(self) -> bytes:
        """The sample index of every row (made on each request: a page load asks once)."""
        index = {"mode": "served", **self.catalog.index()}
        return orjson.dumps(index, option=orjson.OPT_SERIALIZE_NUMPY)

    def rows(self, rows: list[int]) -> bytes:
        """The texts of some rows: their replies, their questions and the exemplars they use."""
        catalog = self.catalog
        found: dict[str, dict[str, object]] = {"rows": {}, "questions": {}, "exemplars": {}}
        for row in rows:
            found["rows"][str(row)] = catalog.reply_views(row, VIEW_LIMITS)
            question = int(catalog.row_question[row])
            view, shots = catalog.question_view(question, VIEW_LIMITS)
            found["questions"][str(question)] = view
            if shots is not None:
                found["exemplars"][shots[0]] = shots[1]
        return msgspec.json.encode(found)

    def search(self, text: str) -> bytes:
        """`{"rows": [...]}`: the rows whose question, gold or reply content holds `text`."""
        cached = self._searches.get(text)
        if cached is None:
            hits = self.searcher.search(text)
            cached = orjson.dumps({"rows": hits}, option=orjson.OPT_SERIALIZE_NUMPY)
            if len(self._searches) >= SEARCHES_KEPT:
                self._searches.pop(next(iter(self._searches)))
            self._searches[text] = cached
        return cached


def parse_rows(text: str, size: int, most: int | None = None) -> list[int]:
    """`"0-4,7"` -> `[0, 1, 2, 3, 4, 7]`; `ValueError` for anything else or out of range.

    >>> parse_rows("0-2,7", 10)
    [0, 1, 2, 7]
    """
    rows: list[int] = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        start, end = int(first), int(last or first)
        if not 0 <= start <= end < size:
            raise ValueError(f"row {part} is not between 0 and {size - 1}")
        rows.extend(range(start, end + 1))
        if most is not None and len(rows) > most:
            raise ValueError(f"at most {most} rows at a time")
    return rows


def _json(body: bytes) -> web.Response:
    return web.Response(body=body, content_type="application/json", headers=HEADERS)


def application(viewer: Viewer, allowed_hosts: Callable[[], set[str]]) -> web.Application:
    """The aiohttp application serving `viewer`; requests must name one of `allowed_hosts()`."""

    @web.middleware
    async def only_this_host(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.host not in allowed_hosts():
            raise web.HTTPForbidden(text="thinkeval view answers only at its own address\n")
        return await handler(request)

    async def page(request: web.Request) -> web.Response:
        return web.Response(body=viewer.page, content_type="text/html", headers=HEADERS)

    async def index(request: web.Request) -> web.Response:
        return _json(viewer.index())

    def rows_of(text: str, most: int | None) -> list[int]:
        try:
            return parse_rows(text, len(viewer.catalog), most)
        except ValueError as exc:
            raise web.HTTPBadRequest(text=f"rows: {exc}\n") from None

    async def rows(request: web.Request) -> web.Response:
        return _json(viewer.rows(rows_of(request.query.get("r", ""), MOST_ROWS_PER_PAGE)))

    async def search(request: web.Request) -> web.Response:
        return _json(viewer.search(request.query.get("q", "")))

    async def export_rows(request: web.Request) -> web.StreamResponse:
        form = await request.post()
        fmt = str(form.get("format", ""))
        if fmt not in EXPORT_FORMATS:
            raise web.HTTPBadRequest(text="format must be jsonl or csv\n")
        golds = str(form.get("golds", ""))
        if golds not in ("", "full"):
            raise web.HTTPBadRequest(
                text="golds must be full, or left out (long golds by reference)\n"
            )
        chosen = rows_of(str(form.get("rows", "")), None)
        response = web.StreamResponse(
            headers={
                **HEADERS,
                "Content-Type": EXPORT_FORMATS[fmt],
                "Content-Disposition": f'attachment; filename="thinkeval-samples.{fmt}"',
            }
        )
        await response.prepare(request)
        for chunk in export(viewer.catalog, chosen, fmt, full_golds=golds == "full"):
            await response.write(chunk)  # lets other requests in between batches
        await response.write_eof()
        return response

    app = web.Application(middlewares=[only_this_host], client_max_size=64 * 1024 * 1024)
    app.router.add_get("/", page)
    app.router.add_get("/api/index", index)
    app.router.add_get("/api/rows", rows)
    app.router.add_get("/api/search", search)
    app.router.add_post("/api/export", export_rows)
    return app


def listen(port: int) -> socket.socket:
    """A socket bound to 127.0.0.1:`port` (0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise ThinkevalError(
            f"cannot listen on {HOST}:{port} ({exc.strerror}); choose another --port, or "
            "--port 0 for any free one"
        ) from None
    return sock


async def serve(viewer: Viewer, sock: socket.socket, ready: Callable[[str], None]) -> None:
    """Serve until SIGINT or SIGTERM; `ready` gets the URL once requests are answered."""
    port = sock.getsockname()[1]
    hosts = {f"{HOST}:{port}", f"localhost:{port}"}
    runner = web.AppRunner(application(viewer, lambda: hosts), access_log=None)
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await web.SockSite(runner, sock).start()
        ready(f"http://{HOST}:{port}/")
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(sig)
        await runner.cleanup()
