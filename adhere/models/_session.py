"""The aiohttp side of the model clients: one shared TLS context, pooled sessions, proxies.

Chosen to behave as the httpx client it replaced did: certificates from
``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` or certifi's bundle, proxies from the
environment, no redirects followed (a 3xx is an error, see the client), cookies kept
per session.
"""

from __future__ import annotations

import functools
import os
import ssl

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

__all__ = ["env_proxy", "new_session", "tls_context"]


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client: loading the CA bundle costs ~40 ms each time."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if cafile:
        return ssl.create_default_context(cafile=cafile)
    capath = os.environ.get("SSL_CERT_DIR")
    if capath:
        return ssl.create_default_context(capath=capath)
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi comes with the dependencies
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def env_proxy(url: str) -> tuple[URL | None, dict[str, str] | None]:
    """The proxy the environment names for ``url``, and the headers it needs, if any.

    ``HTTP_PROXY`` / ``HTTPS_PROXY`` and ``NO_PROXY`` are read, credentials from the
    proxy URL or ``~/.netrc`` (sent as ``Proxy-Authorization``). Looked up once per
    client: aiohttp's own ``trust_env`` does it in a worker thread on every request.
    """
    try:
        proxy, auth = get_env_proxy_for_url(URL(url))
    except LookupError:
        return None, None
    return proxy, ({"Proxy-Authorization": auth.encode()} if auth is not None else None)


def new_session(concurrency: int) -> aiohttp.ClientSession:
    """A pooled session for one client; must be called inside the event loop that uses it.

    Args:
        concurrency: The endpoint's calls in flight; the pool holds at least 100.
    """
    connector = aiohttp.TCPConnector(
        limit=max(100, concurrency), limit_per_host=0, ssl=tls_context()
    )
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))
