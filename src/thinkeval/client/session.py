"""The HTTP session of a run, and the user's network environment: proxies, .netrc, CA certificates.

One `aiohttp.ClientSession` per dispatcher (per model), with one keep-alive connection per request
in flight. The environment is honoured as curl, requests and aiohttp's `trust_env` honour it:

- `HTTP_PROXY` / `HTTPS_PROXY` (either case; the lower-case one wins) with `NO_PROXY`, read by
  the standard library's `urllib.request.getproxies` and `proxy_bypass`;
- `~/.netrc` (or `$NETRC`) for a host's credentials when neither an API key nor
  user:password in the URL gives any;
- `SSL_CERT_FILE` / `SSL_CERT_DIR` for the certificates an https server is checked against
  (`ssl.create_default_context` reads them when it is called).

They are read once per endpoint, when it is set up, rather than through the session's
`trust_env`: aiohttp 3.14 reads the environment and the .netrc file again in a worker thread
for every request, which made the client's CPU per request about four times larger
(docs/benchmarks.md), and it raises when a .netrc entry meets an API key's Authorization header.
"""

from __future__ import annotations

import base64
import netrc
import os
import ssl
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit, urlunsplit

if TYPE_CHECKING:
    import aiohttp

# An idle connection is closed before the server closes it: uvicorn (vLLM, SGLang) closes idle
# connections after 5 s, and a request sent as it does so is lost to a race.
KEEPALIVE_S = 4.0
# How long opening a TCP connection may take; a black-holed address should not take the whole
# request timeout (an hour by default) to say so. Waiting in a server's queue is not affected.
CONNECT_TIMEOUT_S = 30.0


def open_session(concurrency: int, https: bool) -> aiohttp.ClientSession:
    """A session with a connection for each of `concurrency` requests in flight.

    For https endpoints the TLS context is built here, so `SSL_CERT_FILE` / `SSL_CERT_DIR` count
    as they are when the run starts (aiohttp's own default context is built when it is imported).
    """
    import aiohttp  # here: the readers below serve commands that send nothing

    connector = aiohttp.TCPConnector(
        limit=concurrency,
        limit_per_host=0,
        keepalive_timeout=KEEPALIVE_S,
        ssl=ssl_context() if https else True,
    )
    return aiohttp.ClientSession(
        connector=connector,
        # Timeouts are per request, set by each endpoint.
        timeout=aiohttp.ClientTimeout(total=None),
        # Each endpoint sends its own User-Agent; no Accept-Encoding: replies are small, and a
        # compressed one could inflate past the reply cap before it is counted.
        skip_auto_headers=("User-Agent", "Accept-Encoding"),
        trust_env=False,  # read once per endpoint instead: see the module docstring
    )


def ssl_context() -> ssl.SSLContext:
    """The system's trusted certificates, or those `SSL_CERT_FILE` / `SSL_CERT_DIR` name."""
    context = ssl.create_default_context()
    context.set_alpn_protocols(["http/1.1"])
    return context


def split_credentials(url: str) -> tuple[str, str | None]:
    """`url` without its user:password part, and that part as a Basic Authorization value."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = f"{host}:{parts.port}" if parts.port else host
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return clean, basic_auth(unquote(parts.username or ""), unquote(parts.password or ""))


def basic_auth(user: str, password: str) -> str:
    """An `Authorization: Basic` header value."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def netrc_credentials(host: str) -> tuple[str, str] | None:
    """The login and password for `host` in `$NETRC` or `~/.netrc`, if it has them.

    A missing or unreadable file means no credentials, as for curl and aiohttp.
    """
    try:
        path = os.environ.get("NETRC") or str(Path.home() / ".netrc")
        entry = netrc.netrc(path).authenticators(host)
    except (OSError, RuntimeError, netrc.NetrcParseError):  # RuntimeError: no home directory
        return None
    if entry is None:
        return None
    login, _, password = entry
    return login or "", password or ""


def proxy_for(url: str) -> str | None:
    """The proxy the environment names for `url`, or None (none set, or `NO_PROXY` covers it)."""
    parts = urlsplit(url)
    host = parts.hostname
    if host is None:
        return None
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme)
    if not proxy:
        return None
    # proxy_bypass reads no_proxy / NO_PROXY: host names, domain suffixes, "*" and host:port.
    if urllib.request.proxy_bypass(f"{host}:{parts.port}" if parts.port else host):
        return None
    if "://" not in proxy:
        proxy = f"http://{proxy}"  # HTTP_PROXY=host:3128, as curl reads it
    proxy_host = urlsplit(proxy).hostname
    if "@" not in proxy and proxy_host:
        credentials = netrc_credentials(proxy_host)
        if credentials is not None:
            user, password = (quote(part, safe="") for part in credentials)
            proxy = proxy.replace("://", f"://{user}:{password}@", 1)
    return proxy
