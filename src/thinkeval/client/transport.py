"""Failures below HTTP (refused, reset, TLS, proxies) as one plain sentence each.

The endpoint (`endpoint.py`) turns every aiohttp transport error into a `RequestFailed` here:
the kind (`connection`, `tls`) and whether asking again can help, never a URL's credentials.
"""

from __future__ import annotations

import re
import ssl

import aiohttp

from thinkeval.client.replies import RequestFailed
from thinkeval.failures import FailureKind

# OpenSSL's reasons when the other side answered a TLS handshake in plain HTTP.
_PLAIN_HTTP = frozenset(
    {"WRONG_VERSION_NUMBER", "HTTP_REQUEST", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG"}
)
_USERINFO = re.compile(r"//[^/@\s]+@")


def transport_failure(exc: aiohttp.ClientError, base_url: str) -> RequestFailed:
    """A failure below HTTP as one plain sentence; never a URL's credentials."""
    retryable = True
    kind: FailureKind = "connection"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        kind, retryable = "tls", False
        why = _reason(exc.certificate_error)
        message = (
            f"the TLS certificate of {exc.host} is not trusted ({why}); if your own CA "
            "signed it, point SSL_CERT_FILE at the CA's certificate"
        )
    elif isinstance(exc, aiohttp.ClientConnectorSSLError) and _plain_http(exc.os_error):
        kind, retryable = "tls", False
        plain = base_url.replace("https://", "http://", 1)
        message = (
            f"{exc.host}:{exc.port} answered the TLS handshake in plain HTTP: the server "
            f"speaks plain HTTP; use {plain}"
        )
    elif isinstance(exc, aiohttp.ClientProxyConnectionError):
        message = (
            f"cannot connect to the proxy {exc.host}:{exc.port} (HTTP_PROXY / HTTPS_PROXY): "
            f"{_reason(exc.os_error)}"
        )
    elif isinstance(exc, aiohttp.ClientHttpProxyError):
        message = f"the proxy refused to connect: HTTP {exc.status} {exc.message}"
    elif isinstance(exc, aiohttp.ClientConnectorError):
        message = f"cannot connect to {exc.host}:{exc.port}: {_reason(exc.os_error)}"
    elif isinstance(exc, aiohttp.ServerDisconnectedError):
        message = "the server closed the connection before the reply ended"
    elif isinstance(exc, aiohttp.ClientPayloadError):
        message = f"the reply was cut off: {exc}"
    elif isinstance(exc, aiohttp.ClientResponseError):
        first = str(exc.message).strip().splitlines()
        message = f"malformed HTTP response: {first[0] if first else exc.status}"
    elif isinstance(exc, aiohttp.ClientOSError):
        message = f"connection failed: {_reason(exc)}"
    else:
        message = f"{type(exc).__name__}: {exc}"
    return RequestFailed(kind=kind, message=_USERINFO.sub("//***@", message), retryable=retryable)


def _reason(error: BaseException) -> str:
    """`Connection refused` rather than `[Errno 111] Connect call failed ('127.0.0.1', 9)`."""
    if isinstance(error, ssl.SSLError):
        return error.reason or str(error)
    if isinstance(error, OSError) and error.errno:
        return error.strerror or str(error)
    return str(error) or type(error).__name__


def _plain_http(error: BaseException) -> bool:
    return isinstance(error, ssl.SSLError) and (error.reason or "").upper() in _PLAIN_HTTP
