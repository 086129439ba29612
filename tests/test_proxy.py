"""Proxies from the environment, through a real forward proxy (proxy.py) on 127.0.0.1."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import proxy
import pytest
import trustme
from aiohttp import web
from proxy.http.parser import HttpParser
from proxy.http.proxy import HttpProxyBasePlugin

from conftest import write_config
from thinkeval.cli import main
from thinkeval.client.endpoint import Endpoint, RequestFailed
from thinkeval.client.session import open_session
from thinkeval.store.journal import iter_attempts

PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "ALL_PROXY",
    "all_proxy",
)


class Recorder(HttpProxyBasePlugin):
    """Appends each request the proxy receives to the file `path` (the proxy's workers are
    other processes): `METHOD host:port path`."""

    path = ""

    def handle_client_request(self, request: HttpParser) -> HttpParser:
        method, host, path = (part or b"" for part in (request.method, request.host, request.path))
        with open(self.path, "a", encoding="utf-8") as seen:
            seen.write(f"{method.decode()} {host.decode()}:{request.port} {path.decode()}\n")
        return request


@dataclass
class ForwardProxy:
    url: str
    log: Path

    def seen(self) -> list[str]:
        """What the proxy was asked, one request a line, in order."""
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def forward_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ForwardProxy]:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    Recorder.path = str(tmp_path / "proxy-seen.txt")
    args = [
        "--hostname",
        "127.0.0.1",
        "--port",
        "0",
        "--num-acceptors",
        "1",
        "--num-workers",
        "1",
        "--log-level",
        "WARNING",
    ]
    with proxy.Proxy(args, plugins=[Recorder]) as running:
        yield ForwardProxy(f"http://127.0.0.1:{running.flags.port}", Path(Recorder.path))


def host_port(base_url: str) -> str:
    return base_url.split("/")[2]


async def ask(base_url: str) -> tuple[list[dict[str, Any]], str | None]:
    """List the models and ask one question, as a run does; the answer's content."""
    async with open_session(4, base_url.startswith("https:")) as session:
        endpoint = Endpoint(session, base_url, None, 30)
        cards = await endpoint.models()
        body = {
            "model": cards[0]["id"],
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "Question: 1+1?\nAnswer:"}],
        }
        timed = await endpoint.chat(body)
    return cards, timed.reply.content or timed.reply.reasoning


async def test_http_proxy_carries_the_requests(
    sim, forward_proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m")
    monkeypatch.setenv("HTTP_PROXY", forward_proxy.url)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # for https only: never used here
    cards, answer = await ask(server.base_url)
    assert cards[0]["id"] == "m" and answer
    where = host_port(server.base_url)
    assert forward_proxy.seen() == [
        f"GET {where} /v1/models",
        f"POST {where} /v1/chat/completions",
    ]


@pytest.mark.parametrize("no_proxy", ["127.0.0.1", "localhost,127.0.0.1", "*", "PORT"])
async def test_no_proxy_sends_past_the_proxy(
    sim, forward_proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch, no_proxy: str
) -> None:
    server = sim(model="m")
    monkeypatch.setenv("http_proxy", forward_proxy.url)
    monkeypatch.setenv("no_proxy", no_proxy.replace("PORT", host_port(server.base_url)))
    _, answer = await ask(server.base_url)
    assert answer
    assert forward_proxy.seen() == []


async def test_an_unreachable_proxy_is_named(
    sim, forward_proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    with pytest.raises(RequestFailed, match=r"cannot connect to the proxy 127\.0\.0\.1:9"):
        await ask(server.base_url)


@asynccontextmanager
async def tls_models_server(ca: trustme.CA) -> AsyncIterator[str]:
    async def models(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "m", "owned_by": "vllm"}]})

    async def chat(request: web.Request) -> web.Response:
        choice = {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": "The answer is 2"},
        }
        return web.json_response({"model": "m", "choices": [choice], "usage": {}})

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    try:
        yield f"https://127.0.0.1:{runner.addresses[0][1]}/v1"
    finally:
        await runner.cleanup()


async def test_https_proxy_tunnels_with_connect(
    tmp_path: Path, forward_proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.setenv("HTTPS_PROXY", forward_proxy.url)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # for http only: never used here
    async with tls_models_server(ca) as url:
        _, answer = await ask(url)
    assert answer == "The answer is 2"
    # One tunnel carries both requests; the proxy sees neither inside it.
    assert forward_proxy.seen() == [f"CONNECT {host_port(url)} "]


def test_a_whole_run_through_the_proxy(
    tmp_path: Path, sim, forward_proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m", seed=31)
    monkeypatch.setenv("HTTP_PROXY", forward_proxy.url)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "proxied",
            "tasks": [{"name": "gsm8k", "limit": 20}],
            "models": [{"name": "m", "base_url": server.base_url, "concurrency": 4}],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    attempts = list(iter_attempts(tmp_path / "out"))
    assert attempts and all(a.error is None for a in attempts)
    asked = [line for line in forward_proxy.seen() if line.startswith("POST ")]
    assert len(asked) == len(attempts)
    assert all(line.endswith("/v1/chat/completions") for line in asked)
