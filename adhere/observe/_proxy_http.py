"""HTTP pieces the recording proxy's forwarders share: client writes, refusals, cut streams."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass

import aiohttp
from aiohttp import web

from adhere.wire import Api, error_body

__all__ = ["ClientGone", "Relay", "cut", "describe", "refuse", "send_upstream", "to_client"]

logger = logging.getLogger("adhere.observe._proxy_app")


@dataclass
class Relay:
    """The client's response once a forwarder has made it (so a failure can cut it)."""

    response: web.StreamResponse | None = None


class ClientGone(Exception):
    """Writing to the client failed: it closed the connection."""


async def to_client(step: Awaitable[object]) -> None:
    """Await a write to the client; a closed connection raises :class:`ClientGone`."""
    try:
        await step
    except ConnectionError as exc:
        raise ClientGone(describe(exc)) from None


def cut(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """End a relayed response without its terminator, so the client sees it broke off."""
    if request.transport is not None:
        request.transport.close()
    return response


def refuse(api: Api, message: str, status: int = 404) -> web.Response:
    """An error answer in the API's own shape."""
    return web.json_response(error_body(api, status, message), status=status)


def describe(exc: BaseException) -> str:
    """An exception as ``Type: message`` (the type alone when it has no message)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def send_upstream(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    timeout: aiohttp.ClientTimeout,
) -> aiohttp.ClientResponse:
    """Send a request upstream; once more if the connection closes before an answer.

    A pooled keep-alive connection may already be closed by the server (some close
    it right after a streamed reply, others after a few idle seconds) without the
    pool having noticed yet; the request then never reached the model.
    """
    for attempt in (1, 2):
        try:
            return await session.request(
                method,
                url,
                data=body or None,
                headers=headers,
                timeout=timeout,
                allow_redirects=False,
            )
        except aiohttp.ServerDisconnectedError:
            if attempt == 2:
                raise
            logger.debug("upstream %s closed the connection before answering; resent", url)
    raise AssertionError("unreachable")
