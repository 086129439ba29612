"""Server URLs as users give them: what is wrong with one, and how to show one safely."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# Query parameters whose values are secrets (`?api_key=...`, `?sig=...`), by name.
_SECRET_PARAM = re.compile(r"key|token|secret|passw|auth|sig|credential", re.IGNORECASE)


def redact_url(url: str) -> str:
    """`url` for display and files: a user:password part becomes `***`, and so does the value
    of every key-like query parameter.

    >>> redact_url("https://user:pw@host/v1?api_key=abc&x=1")
    'https://***@host/v1?api_key=%2A%2A%2A&x=1'
    """
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        parts = parts._replace(netloc=f"***@{host}")
    if parts.query and _SECRET_PARAM.search(parts.query):
        query = [
            (name, "***" if _SECRET_PARAM.search(name) else value)
            for name, value in parse_qsl(parts.query, keep_blank_values=True)
        ]
        parts = parts._replace(query=urlencode(query))
    return urlunsplit(parts)


def api_url(base_url: str, path: str, *, origin: bool = False) -> str:
    """`path` joined onto the path of `base_url`, whose query is kept on every request (an
    Azure-style `?api-version=...`); with `origin`, a trailing `/v1` is dropped first, for what
    a server serves at its root (`/metrics`, llama.cpp's `/props` and `/slots`).

    >>> api_url("https://h/openai/v1/?api-version=2024-06-01", "chat/completions")
    'https://h/openai/v1/chat/completions?api-version=2024-06-01'
    >>> api_url("http://h:8000/v1", "/metrics", origin=True)
    'http://h:8000/metrics'
    """
    parts = urlsplit(base_url.strip())
    root = parts.path.rstrip("/")
    if origin:
        root = root.removesuffix("/v1")
    joined = f"{root}/{path.lstrip('/')}" if path else root
    return urlunsplit((parts.scheme, parts.netloc, joined, parts.query, ""))


def url_path(url: str) -> str:
    """The path of `url` without a trailing slash (no query, no fragment)."""
    return urlsplit(url).path.rstrip("/")


def url_problem(url: str) -> str | None:
    """What is wrong with a server URL as given, in words for its user; None when it is usable.

    >>> url_problem("localhost:8000/v1")
    "has no scheme: did you mean 'http://localhost:8000/v1'?"
    """
    if not url.strip():
        return "is empty: give the server's root, e.g. http://127.0.0.1:8000/v1"
    if "://" not in url:
        return f"has no scheme: did you mean {redact_url('http://' + url.strip().lstrip('/'))!r}?"
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        return f"uses {parts.scheme}://, but only http:// and https:// servers are supported"
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number
    except ValueError:
        return "has a port that is not a number"
    if not parts.hostname:
        return "has no host, e.g. http://127.0.0.1:8000/v1"
    return None


def endpoint_key(base_url: str) -> str:
    """The form two spellings of one base URL share: scheme and host lower-cased, no trailing
    slash; credentials and query left out (they never name the server, and a redacted URL
    must name the same one).

    >>> endpoint_key("HTTP://GPU-1:8000/v1/"), endpoint_key("http://u:p@gpu-1:8000/v1?key=k")
    ('http://gpu-1:8000/v1', 'http://gpu-1:8000/v1')
    """
    parts = urlsplit(base_url.strip())
    netloc = parts.netloc.rpartition("@")[2].lower()
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))
