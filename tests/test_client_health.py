"""Shared in-flight caps per server, and when a model's server counts as gone."""

from __future__ import annotations

from thinkeval.client.endpoint import RequestFailed
from thinkeval.client.health import REPORT_AFTER_FAILURES, Reachability
from thinkeval.client.limits import EndpointLimits, endpoint_caps
from thinkeval.config import ModelConfig

REFUSED = RequestFailed(kind="connection", message="cannot connect to 127.0.0.1:9", retryable=True)
BAD_GATEWAY = RequestFailed(
    kind="server_error", message="HTTP 502", retryable=True, http_status=502
)
SERVER_ERROR = RequestFailed(
    kind="server_error", message="HTTP 500", retryable=True, http_status=500
)
TIMEOUT = RequestFailed(kind="timeout", message="no complete reply within 600 s", retryable=True)


def fail(health: Reachability, failure: RequestFailed = REFUSED, times: int = 1) -> None:
    for _ in range(times):
        health.ended(health.started(), "http://127.0.0.1:9/v1", failure)


def model(name: str, url: str | list[str], concurrency: int) -> ModelConfig:
    return ModelConfig(name=name, base_url=url, concurrency=concurrency)


def test_caps_cover_shared_servers_and_the_configured_ones() -> None:
    models = [
        model("a", "http://gpu:8000/v1", 64),
        model("b", "HTTP://GPU:8000/v1/", 16),
        model("c", ["http://gpu:8001/v1", "http://gpu:8002/v1"], 8),
    ]
    assert endpoint_caps(models) == {"http://gpu:8000/v1": 64}
    configured = {"http://gpu:8000/v1": 48, "http://gpu:8002/v1": 4, "http://elsewhere/v1": 9}
    assert endpoint_caps(models, configured) == {"http://gpu:8000/v1": 48, "http://gpu:8002/v1": 4}
    limits = EndpointLimits(endpoint_caps(models, configured))
    assert limits.semaphore("http://gpu:8000/v1/") is limits.semaphore("http://GPU:8000/v1")
    assert limits.semaphore("http://gpu:8001/v1") is None


async def test_a_model_is_gone_after_its_window_of_failures_only() -> None:
    health = Reachability(window_s=0.0)
    fail(health)
    assert not health.gone.is_set()  # one failure is too little to go on
    assert health.outage is None  # and not reported yet
    fail(health, BAD_GATEWAY)  # a proxy saying the server behind it is not there counts too
    assert health.gone.is_set()


async def test_an_open_try_holds_the_verdict_back() -> None:
    health = Reachability(window_s=0.0)
    fail(health)
    working = health.started()  # the server may be generating a long reply for this one
    fail(health, times=REPORT_AFTER_FAILURES)
    assert not health.gone.is_set()
    outage = health.outage
    assert outage is not None and outage.failures == REPORT_AFTER_FAILURES + 1
    health.ended(working, "http://127.0.0.1:9/v1", REFUSED)
    assert health.gone.is_set()


async def test_any_reply_ends_an_outage_and_a_timeout_says_nothing() -> None:
    health = Reachability(window_s=60.0)
    fail(health, times=REPORT_AFTER_FAILURES - 1)
    fail(health, TIMEOUT)
    assert health.outage is None  # the timeout neither proves nor disproves anything
    fail(health)
    outage = health.outage
    assert outage is not None and outage.last_error == REFUSED.message
    fail(health, SERVER_ERROR)  # an error reply still means the server is there
    assert health.outage is None
    fail(health, times=REPORT_AFTER_FAILURES)
    later = health.outage
    assert later is not None and later.since >= outage.since  # a new outage, counted afresh
    assert later.failures == REPORT_AFTER_FAILURES and not health.gone.is_set()
    never = Reachability(window_s=None)
    fail(never, times=50)
    assert not never.gone.is_set() and never.outage is not None
