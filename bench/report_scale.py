#!/usr/bin/env python3
"""How reports scale: report.html size and Chromium load time, `thinkeval view` first paint and
server memory, for the demo run and for a generated 100,000-sample run.

The generated run is written directly by bench/generate_run.py (config, samples file and
journal, every line as `thinkeval run` would write it), in seconds, not asked of any server.

For each run it measures, in fresh processes:

* `thinkeval report --format html`: wall time, peak RSS, and the size of report.html;
* Chromium (Debian's, through Playwright) opening report.html: time to the load event, to the
  first sample card, and the JS heap;
* `thinkeval view`: time until it serves; in Chromium the first contentful paint, the time to
  the first sample card, a full-text search and a jump to the last page; then the server's
  resident memory (VmRSS) and peak (VmHWM).

With `--baseline SRC` (e.g. /work/main/src: a checkout's source folder, imported read-only) it
also builds both runs' report.html with that code, side by side (where that code can report
them).

Usage (from the repository root, inside thinkeval's virtualenv)::

    python bench/report_scale.py                      # demo + 100k, in a temporary folder
    python bench/report_scale.py --samples 10000 --keep /tmp/scale
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generate_run import generate_run


def run_measured(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Run a command to completion: (wall seconds, its peak RSS in MiB).

    The peak is the process's VmHWM, read every 20 ms: the rusage of a child also counts the
    memory of this script at the fork, which would hide a smaller child.
    """
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0.0
    while process.poll() is None:
        with contextlib.suppress(OSError, KeyError, ValueError):
            peak = max(peak, memory_mib(process.pid)[1])
        time.sleep(0.02)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        assert process.stderr is not None
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()[-2000:]}")
    return wall, peak


def memory_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    binary = shutil.which("chromium")
    if binary is None:
        raise SystemExit("chromium is not installed (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


# Searches with many hits and with few, in both runs (the decimals are the demo's and ours).
SEARCHES = {"common": "the answer is 1", "rare": "answer is 999"}


def drawn(page: Any) -> None:
    """Wait until the sample list is drawn (the page marks it aria-busy until then). Selectors,
    not `wait_for_function`: the page's CSP forbids the evaluation polling needs."""
    page.locator("#sample-list:not([aria-busy])").wait_for(state="attached", timeout=600_000)


def js_heap_mib(page: Any) -> float:
    session = page.context.new_cdp_session(page)
    session.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
    return float(metrics["JSHeapUsedSize"]) / 2**20


def open_file(browser: Any, path: Path) -> dict[str, float]:
    """Chromium opening report.html: load event, first sample card, JS heap."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    started = time.perf_counter()
    page.goto(path.as_uri(), wait_until="load", timeout=600_000)
    loaded = time.perf_counter() - started
    drawn(page)
    first_card = time.perf_counter() - started
    figures = {"load_s": loaded, "first_paint_s": paint_s(page), "first_card_s": first_card}
    figures["js_heap_mib"] = js_heap_mib(page)
    page.close()
    return figures


def paint_s(page: Any) -> float:
    return (
        float(
            page.evaluate(
                "performance.getEntriesByType('paint')"
                ".find(e => e.name === 'first-contentful-paint').startTime"
            )
        )
        / 1000
    )


def open_viewer(browser: Any, url: str) -> dict[str, float]:
    """Chromium on `thinkeval view`: first paint, first card, a search, the last page."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    started = time.perf_counter()
    page.goto(url, wait_until="load")
    drawn(page)
    figures = {"first_paint_s": paint_s(page), "first_card_s": time.perf_counter() - started}
    for kind, text in SEARCHES.items():
        started = time.perf_counter()
        page.locator("#f-q").fill(text)
        drawn(page)
        figures[f"search_{kind}_s"] = time.perf_counter() - started - 0.25  # less the typing pause
        figures[f"search_{kind}_hits"] = float(
            page.locator("#sample-count").inner_text().split()[0]
        )
    page.locator("#f-q").fill("")
    drawn(page)
    pages = int(page.locator("#page-count").inner_text().split()[-1])
    started = time.perf_counter()
    page.locator("#f-page").fill(str(pages))
    page.locator("#f-page").dispatch_event("change")
    drawn(page)
    figures["last_page_s"] = time.perf_counter() - started
    page.close()
    return figures


def measure(
    run: Path, out: Path, browser: Any, env: dict[str, str] | None = None
) -> dict[str, float]:
    """Every figure for one run directory (see the module docstring)."""
    html = out / f"{run.name}.html"
    thinkeval = [sys.executable, "-m", "thinkeval"]
    wall, peak = run_measured(
        [*thinkeval, "report", str(run), "--format", "html", "--out", str(html)], env
    )
    figures = {"report_s": wall, "report_peak_mib": peak, "html_mb": html.stat().st_size / 1e6}
    figures.update({f"file_{k}": v for k, v in open_file(browser, html).items()})
    started = time.perf_counter()
    server = subprocess.Popen(
        [*thinkeval, "view", str(run), "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        figures["view_start_s"] = time.perf_counter() - started
        url = line.split("thinkeval view: ")[1].split(" ")[0]
        figures["view_rss_start_mib"] = memory_mib(server.pid)[0]
        figures.update({f"view_{k}": v for k, v in open_viewer(browser, url).items()})
        figures["view_rss_mib"], figures["view_peak_mib"] = memory_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return figures


def baseline(source: Path, run: Path, folder: Path, browser: Any) -> None:
    """A run's report.html built by another checkout's code, side by side; a checkout that
    cannot report the run (before reports of repeats, for one) says so and is skipped."""
    env = dict(os.environ, PYTHONPATH=str(source), PYTHONDONTWRITEBYTECODE="1")
    html = folder / f"baseline-{run.name}.html"
    command = [sys.executable, "-m", "thinkeval", "report", str(run), "--format", "html"]
    try:
        wall, peak = run_measured([*command, "--out", str(html)], env)
    except SystemExit as failed:
        print(f"\n{run.name}, baseline report from {source}: not written ({failed})")
        return
    figures = {"report_s": wall, "report_peak_mib": peak, "html_mb": html.stat().st_size / 1e6}
    figures.update({f"file_{k}": v for k, v in open_file(browser, html).items()})
    print_figures(f"{run.name}, baseline report from {source}", figures)


def print_figures(name: str, figures: dict[str, float]) -> None:
    print(f"\n{name}")
    for key, value in figures.items():
        print(f"  {key:<24} {value:10.2f}")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100_000, help="generated run size")
    parser.add_argument("--keep", type=Path, help="folder to keep the runs in (default: temp)")
    parser.add_argument("--demo", type=Path, help="an existing demo run (default: run the demo)")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout's src/, to build both reports with too"
    )
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="report-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    demo = args.demo
    if demo is None:
        demo = folder / "demo"
        subprocess.run(
            [sys.executable, "-m", "thinkeval", "demo", "--output", str(demo)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    started = time.perf_counter()
    generated = generate_run(folder, args.samples)
    print(
        f"generated {generated} in {time.perf_counter() - started:.1f} s "
        f"({sum(p.stat().st_size for p in generated.rglob('*') if p.is_file()) / 1e6:.0f} MB)"
    )
    with chromium() as browser:
        print(f"chromium {browser.version}; load average {os.getloadavg()[0]:.2f}", flush=True)
        print_figures(f"demo ({demo})", measure(demo, folder, browser))
        if args.baseline:
            baseline(args.baseline, demo, folder, browser)
        print_figures(f"generated ({generated})", measure(generated, folder, browser))
        if args.baseline:
            baseline(args.baseline, generated, folder, browser)
    if args.keep is None:
        shutil.rmtree(folder)
    print(
        f"\nmachine: {os.cpu_count()} cores; peak RSS of this script "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
