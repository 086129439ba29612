"""One revision's HTTP layer alone: its `Endpoint.chat` and the client under it, with no run.

`compare_revisions.py` runs this script with a revision on `PYTHONPATH`, against the same
simulator and with the same request bodies as the revision's whole run, so that the CPU of a
run can be split into what its HTTP layer costs (import, connections, requests, reply parsing)
and what the rest of thinkeval costs (config, samples, scoring, the journal, the summary):

    python bench/thinkeval_bench/http_layer.py --url http://127.0.0.1:PORT/v1 \
        --rows data/gsm8k/test.jsonl --requests 1000 --model sim-qwen3

It knows the layouts thinkeval has had: `thinkeval.client.*` over aiohttp (now), and before
that an endpoint over the hand-written httptools client: `thinkeval.endpoint` with
`thinkeval.http_client` (until the task model), `thinkeval.client.endpoint` with
`thinkeval.client.http` (while the task model was being built).
It imports nothing else of thinkeval's and nothing of the bench's, so that its own cost is the
layer's.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
from collections.abc import Iterator
from typing import Any, Protocol

CONCURRENCY = 64  # as in the whole run
MAX_TOKENS = 2048


class _Endpoint(Protocol):
    async def chat(self, body: dict[str, Any]) -> Any: ...


def request_bodies(rows: str, n: int, model: str) -> list[dict[str, Any]]:
    """One chat request per GSM8K row: the question as the user's message."""
    bodies: list[dict[str, Any]] = []
    with open(rows, encoding="utf-8") as lines:
        for line in lines:
            if len(bodies) == n:
                break
            if line.strip():
                question = json.loads(line)["question"]
                bodies.append(
                    {
                        "model": model,
                        "messages": [{"role": "user", "content": question}],
                        "max_tokens": MAX_TOKENS,
                        "chat_template_kwargs": {"enable_thinking": True},
                    }
                )
    if len(bodies) < n:
        raise SystemExit(f"error: {rows} has {len(bodies)} rows, fewer than {n}")
    return bodies


async def drive(endpoint: _Endpoint, bodies: list[dict[str, Any]]) -> int:
    """Send every body with CONCURRENCY in flight; the number of replies."""
    pending: Iterator[dict[str, Any]] = iter(bodies)
    replies = 0

    async def worker() -> None:
        nonlocal replies
        for body in pending:
            await endpoint.chat(body)
            replies += 1

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return replies


async def with_aiohttp(url: str, bodies: list[dict[str, Any]]) -> int:
    """The layout since the task model: `thinkeval.client` over aiohttp."""
    from thinkeval.client.endpoint import Endpoint
    from thinkeval.client.profiles import get_profile
    from thinkeval.client.session import open_session

    async with open_session(CONCURRENCY, https=False) as session:
        endpoint = Endpoint(session, url, None, 600.0, profile=get_profile("vllm"))
        return await drive(endpoint, bodies)


async def with_own_client(url: str, bodies: list[dict[str, Any]], package: str) -> int:
    """The layouts before it: an `Endpoint` over the hand-written `HttpClient` (httptools),
    `thinkeval.endpoint` + `thinkeval.http_client` before the reshape, `thinkeval.client.endpoint`
    + `thinkeval.client.http` during it."""
    endpoints = importlib.import_module(f"thinkeval.{package}endpoint")
    http = importlib.import_module(
        "thinkeval.http_client" if package == "" else f"thinkeval.{package}http"
    )
    async with http.HttpClient(user_agent="thinkeval") as client:
        endpoint = endpoints.Endpoint(client, url, None, 600.0)
        return await drive(endpoint, bodies)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the simulator's base URL (…/v1)")
    parser.add_argument("--rows", required=True, help="a GSM8K-format JSONL file")
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--model", required=True)
    args = parser.parse_args()
    bodies = request_bodies(args.rows, args.requests, args.model)
    if importlib.util.find_spec("thinkeval.http_client") is not None:
        replies = asyncio.run(with_own_client(args.url, bodies, ""))
    elif importlib.util.find_spec("thinkeval.client.http") is not None:
        replies = asyncio.run(with_own_client(args.url, bodies, "client."))
    else:
        replies = asyncio.run(with_aiohttp(args.url, bodies))
    if replies != len(bodies):
        raise SystemExit(f"error: {replies} replies to {len(bodies)} requests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
