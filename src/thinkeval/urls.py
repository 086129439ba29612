"""Server URLs as users give them: what is wrong with one, and how to show one safely."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redact_url(url: str) -> str:
    """Return `url` with any user:password part replaced by `***`, for display and files."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))


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
    slash.

    >>> endpoint_key("HTTP://GPU-1:8000/v1/")
    'http://gpu-1:8000/v1'
    """
    parts = urlsplit(base_url.strip())
    netloc = parts.netloc.rpartition("@")[2].lower()  # credentials never name the server
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), parts.query, ""))
