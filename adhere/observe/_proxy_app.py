"""The recording proxy's aiohttp application: route, forward, relay, record.

Every request under ``/t/<trial-id>/<upstream>/<api-path>`` is forwarded to the
upstream's base URL plus ``<api-path>`` and the query (less ``key=``), with the
client's credentials replaced by the upstream's key. The answer is relayed as it
arrives (chunk by chunk for streams) and, once the call is over, one record is
built, redacted and handed to the sink. ``GET /healthz`` answers ``{"status": "ok"}``;
``POST /trials/<trial-id>/settle?grace=<seconds>`` waits for the trial's calls in flight
and answers how many calls it started (see :mod:`adhere.observe._proxy_inflight`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping

import aiohttp
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy

from adhere.observe._proxy_config import NAME_PATTERN, ProxyConfig, Upstream
from adhere.observe._proxy_http import (
    ClientGone,
    Relay,
    cut,
    describe,
    refuse,
    send_upstream,
    to_client,
)
from adhere.observe._proxy_inflight import DEFAULT_SETTLE_SECONDS, InFlight
from adhere.observe._proxy_record import CallLog
from adhere.observe._proxy_translate import forward_translated
from adhere.observe._redact import Redactor
from adhere.wire import (
    CLIENT_AUTH_HEADERS,
    apply_controls,
    client_keys,
    detect_api,
    is_chat_call,
    is_event_stream,
    parse_body,
    upstream_auth,
    upstream_query,
    wants_stream,
)

__all__ = ["INFLIGHT_KEY", "SESSION_KEY", "create_proxy_app"]

logger = logging.getLogger(__name__)

SESSION_KEY = web.AppKey("adhere_proxy_session", aiohttp.ClientSession)
"""Where the application finds the upstream HTTP session (set by the proxy on start)."""
INFLIGHT_KEY = web.AppKey("adhere_proxy_inflight", InFlight)
"""Where the application keeps its calls in flight (to settle trials in process)."""

_ROUTE = re.compile(r"^/t/([^/]*)/([^/]*)(/.*)?$")
_SETTLE = re.compile(r"^/trials/([^/]*)/settle$")
_MAX_SETTLE_SECONDS = 600.0
_MAX_BODY = 256 * 1024 * 1024
_MAX_CLIENT_KEYS = 16
_STOPPED = "cancelled: the proxy stopped before the call ended"
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
# Never sent upstream: the client's credentials, and framing the proxy redoes (aiohttp
# decompresses request bodies, and asks upstream for encodings it can decode itself).
_DROP_UPSTREAM = _HOP_BY_HOP | CLIENT_AUTH_HEADERS
_DROP_UPSTREAM |= {"host", "content-length", "content-encoding", "accept-encoding", "expect"}
# Never sent back: framing that changes (bodies arrive decompressed) and what aiohttp adds.
_DROP_DOWNSTREAM = _HOP_BY_HOP | {"content-length", "content-encoding", "date", "server"}


def create_proxy_app(config: ProxyConfig) -> web.Application:
    """The proxy's application; the caller puts a ``ClientSession`` under :data:`SESSION_KEY`."""
    app = web.Application(client_max_size=_MAX_BODY)
    forwarder = _Forwarder(config, lambda: app[SESSION_KEY])
    app[INFLIGHT_KEY] = forwarder.inflight
    app.router.add_route("*", "/{tail:.*}", forwarder.handle)
    app.on_shutdown.append(forwarder.shutting_down)
    return app


class _Forwarder:
    def __init__(self, config: ProxyConfig, session: Callable[[], aiohttp.ClientSession]) -> None:
        self._config = config
        self._session = session
        self.inflight = InFlight()
        self._secrets = [u.api_key for u in config.upstreams.values() if u.api_key]
        self._secrets.extend(config.secrets)
        # Credentials each trial's client sent, newest last: a dummy key seen in one
        # call is redacted in the trial's later calls too (it may turn up in a body).
        self._client_keys: dict[str, dict[str, None]] = {}
        self._stopping = False

    async def shutting_down(self, app: web.Application) -> None:
        """Note that the proxy is stopping: connections closed now were closed by it."""
        self._stopping = True

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.rel_url.raw_path
        if path == "/healthz" and request.method == "GET":
            return web.json_response({"status": "ok"})
        settle = _SETTLE.match(path)
        if settle is not None and request.method == "POST":
            return await self._settle(settle.group(1), request.query.get("grace"))
        match = _ROUTE.match(path)
        api_path = (match.group(3) or "") if match else path
        api = detect_api(api_path, request.headers, request.query)
        if match is None or not api_path:
            return refuse(api, "expected a path /t/<trial-id>/<upstream>/<api-path>")
        trial, name = match.group(1), match.group(2)
        if not NAME_PATTERN.fullmatch(trial):
            return refuse(api, f"bad trial id {trial!r}: use letters, digits, '.', '_', '-'")
        upstream = self._config.upstreams.get(name)
        if upstream is None:
            known = ", ".join(sorted(self._config.upstreams)) or "none"
            return refuse(api, f"unknown upstream {name!r} (known: {known})")
        seq = self.inflight.next_seq(trial)
        query = request.rel_url.raw_query_string
        log = CallLog(seq, trial, name, api, request.method, api_path, query)
        self.inflight.begin(log)
        try:
            return await self._forward(request, upstream, log)
        except asyncio.CancelledError:
            if not log.settled:  # a settle sets its own error, or none for a whole reply
                log.error = log.error or _STOPPED
            raise
        except BaseException as exc:
            log.error = log.error or f"proxy failure: {describe(exc)}"
            raise
        finally:
            try:
                self._finish(log, request)
            finally:
                self.inflight.end(log)

    async def _settle(self, trial: str, grace: str | None) -> web.Response:
        if not NAME_PATTERN.fullmatch(trial):
            return _json_error(400, f"bad trial id {trial!r}: use letters, digits, '.', '_', '-'")
        try:
            seconds = DEFAULT_SETTLE_SECONDS if grace is None else float(grace)
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds <= _MAX_SETTLE_SECONDS:
            return _json_error(400, f"grace must be 0 to {_MAX_SETTLE_SECONDS:g} seconds")
        settled = await self.inflight.settle(trial, seconds)
        return web.json_response(settled.to_json())

    async def _forward(
        self, request: web.Request, upstream: Upstream, log: CallLog
    ) -> web.StreamResponse:
        body = await request.read()
        log.request = parse_body(body)
        log.stream = wants_stream(log.api, log.path, log.request)
        relay = Relay()
        try:
            if upstream.api is not None and upstream.api != log.api:
                return await forward_translated(self._session(), request, upstream, log, relay)
            if not upstream.controls.empty and isinstance(log.request, dict):
                if is_chat_call(log.api, log.path):
                    log.request = apply_controls(log.api, log.request, upstream.controls)
                    body = json.dumps(log.request, ensure_ascii=False).encode("utf-8")
            return await self._relay(request, upstream, log, body, relay)
        except ClientGone as gone:
            if not log.reply_ended():  # a client leaving after the whole reply is fine
                log.error = _STOPPED if self._stopping else f"the client went away: {gone}"
            return _failed(request, relay.response, log, 499)
        except TimeoutError as exc:
            log.error = upstream.timeout_error(exc)
            return _failed(request, relay.response, log, 504)
        except aiohttp.ClientError as exc:
            answered = log.status if log.translated is None else log.translated.status
            what = "upstream unreachable" if answered is None else "the upstream reply broke off"
            log.error = f"{what}: {describe(exc)}"
            return _failed(request, relay.response, log, 502)

    async def _relay(
        self, request: web.Request, upstream: Upstream, log: CallLog, body: bytes, relay: Relay
    ) -> web.StreamResponse:
        """Forward a call as it came (the upstream speaks the client's shape)."""
        query = upstream_query(log.query)
        url = upstream.base_url + log.path + (f"?{query}" if query else "")
        headers = _outgoing_headers(request.headers, upstream_auth(log.api, upstream.api_key))
        timeout = upstream.client_timeout()
        session = self._session()
        async with await send_upstream(
            session, request.method, url, body, headers, timeout
        ) as answer:
            log.status = answer.status
            log.content_type = answer.headers.get("Content-Type", "")
            response = relay.response = web.StreamResponse(
                status=answer.status,
                reason=answer.reason,
                headers=_incoming_headers(answer.headers),
            )
            if log.stream or is_event_stream(log.content_type):
                await to_client(response.prepare(request))
                async for chunk in answer.content.iter_any():
                    log.first_bytes()
                    log.body.extend(chunk)
                    await to_client(response.write(chunk))
                    if log.stream_final():
                        break  # the last event is relayed: an upstream may keep the line open
            else:
                async for chunk in answer.content.iter_any():
                    log.first_bytes()
                    log.body.extend(chunk)
                response.content_length = len(log.body)
                await to_client(response.prepare(request))
                await to_client(response.write(bytes(log.body)))
        await to_client(response.write_eof())
        log.finish()
        return response

    def _finish(self, log: CallLog, request: web.Request) -> None:
        known = self._client_keys.setdefault(log.trial, {})
        for key in client_keys(request.headers, request.query):
            known.pop(key, None)
            known[key] = None
        while len(known) > _MAX_CLIENT_KEYS:
            del known[next(iter(known))]
        redactor = Redactor([*self._secrets, *known])
        record = log.record(redactor)
        logger.debug(
            "trial %s call %d: %s %s -> %s in %.3fs%s",
            log.trial,
            log.seq,
            log.method,
            record.path,
            log.status,
            record.duration_seconds,
            f" ({record.error})" if record.error else "",
        )
        try:
            self._config.sink.record(log.trial, record)
        except Exception:
            logger.exception("the record sink failed for trial %s call %d", log.trial, log.seq)


def _failed(
    request: web.Request, response: web.StreamResponse | None, log: CallLog, status: int
) -> web.StreamResponse:
    """The client's answer when upstream failed: an API-shaped error, or a cut stream."""
    log.finish()
    if response is not None and response.prepared:
        return cut(request, response)
    return refuse(log.api, log.error or "the call failed", status)


def _json_error(status: int, message: str) -> web.Response:
    return web.json_response({"error": {"message": message}}, status=status)


def _outgoing_headers(incoming: CIMultiDictProxy[str], auth: Mapping[str, str]) -> CIMultiDict[str]:
    headers = CIMultiDict(_kept(incoming.items(), _DROP_UPSTREAM | _listed(incoming)))
    headers.update(auth)
    return headers


def _incoming_headers(upstream: CIMultiDictProxy[str]) -> CIMultiDict[str]:
    return CIMultiDict(_kept(upstream.items(), _DROP_DOWNSTREAM | _listed(upstream)))


def _kept(items: Iterable[tuple[str, str]], dropped: frozenset[str]) -> list[tuple[str, str]]:
    return [(name, value) for name, value in items if name.lower() not in dropped]


def _listed(headers: CIMultiDictProxy[str]) -> frozenset[str]:
    """Header names a ``Connection`` header marks as hop-by-hop."""
    names = ",".join(headers.getall("Connection", []))
    return frozenset(name.strip().lower() for name in names.split(",") if name.strip())
