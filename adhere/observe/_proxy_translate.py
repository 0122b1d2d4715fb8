"""Forwarding a call translated into the upstream's API shape (see :mod:`adhere.wire._translate`).

The client's request is decoded and re-encoded for the upstream; the upstream's whole
answer is read, then translated back and sent. A streaming client gets its stream
headers at once and an SSE comment every :data:`KEEPALIVE_SECONDS` while the
upstream streams (clients ignore comments; they keep idle-timeouts from firing), then
the translated events. Both sides are recorded (``upstream_call`` in the record).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid

import aiohttp
from aiohttp import web

from adhere.observe._proxy_config import Upstream
from adhere.observe._proxy_http import Relay, cut, refuse, send_upstream, to_client
from adhere.observe._proxy_record import CallLog, UpstreamSide
from adhere.wire import SSE_CONTENT_TYPE, LocalAnswer, WireFormatError, plan_call, translate_answer
from adhere.wire import upstream_auth as auth_headers

__all__ = ["KEEPALIVE_SECONDS", "forward_translated"]

KEEPALIVE_SECONDS = 5.0
"""How often a streaming client hears from the proxy while the upstream is answering."""

_KEEPALIVE = b": adhere: waiting for the upstream\n\n"


async def forward_translated(
    session: aiohttp.ClientSession,
    request: web.Request,
    upstream: Upstream,
    log: CallLog,
    relay: Relay,
) -> web.StreamResponse:
    """Translate one call into ``upstream.api``, forward it, translate the answer back."""
    assert upstream.api is not None
    try:
        plan = plan_call(
            log.api,
            log.path,
            log.query,
            log.request,
            upstream.api,
            controls=upstream.controls,
            model=upstream.model,
        )
    except WireFormatError as exc:
        log.error = f"cannot translate this {log.api} call into {upstream.api}: {exc}"
        log.status = 400
        refusal = refuse(log.api, log.error, 400)
        log.content_type = "application/json"
        log.body.extend(refusal.body if isinstance(refusal.body, bytes) else b"")
        log.finish()
        return refusal
    if isinstance(plan, LocalAnswer):
        payload = json.dumps(plan.body).encode("utf-8")
        log.status, log.content_type = plan.status, "application/json"
        log.body.extend(payload)
        log.finish()
        return web.Response(status=plan.status, body=payload, content_type="application/json")
    side = log.translated = UpstreamSide(upstream.api, plan.path, plan.body)
    headers = {**plan.headers, **auth_headers(upstream.api, upstream.api_key)}
    data = json.dumps(plan.body, ensure_ascii=False).encode("utf-8")
    keepalive: asyncio.Task[None] | None = None
    retry_after: str | None = None
    try:
        timeout = upstream.client_timeout()
        url = upstream.base_url + plan.path
        async with await send_upstream(session, "POST", url, data, headers, timeout) as answer:
            side.status = answer.status
            side.content_type = answer.headers.get("Content-Type", "")
            retry_after = answer.headers.get("Retry-After")
            if plan.request.stream and 200 <= answer.status < 300:
                response = relay.response = web.StreamResponse(
                    status=200,
                    headers={"Content-Type": SSE_CONTENT_TYPE, "Cache-Control": "no-cache"},
                )
                await to_client(response.prepare(request))
                keepalive = asyncio.create_task(_keep_alive(response))
            async for chunk in answer.content.iter_any():
                log.first_bytes()
                side.body.extend(chunk)
                if side.stream_final():
                    break  # the last event arrived: an upstream may keep the line open
    finally:
        if keepalive is not None:
            keepalive.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await keepalive
    outcome = translate_answer(
        plan,
        side.status,
        side.content_type,
        bytes(side.body),
        ident=uuid.uuid4().hex[:24],
        created=int(time.time()),
    )
    side.answer = outcome.upstream
    if outcome.payload is None:
        log.error = log.upstream_error = outcome.error or "the upstream reply could not be read"
        log.finish()
        if relay.response is not None and relay.response.prepared:
            return cut(request, relay.response)
        log.status = 502
        return refuse(log.api, log.error, 502)
    log.status, log.content_type = outcome.status, outcome.content_type
    log.body.extend(outcome.payload)
    log.answered = outcome.client
    if relay.response is not None and relay.response.prepared:
        await to_client(relay.response.write(outcome.payload))
        await to_client(relay.response.write_eof())
        log.finish()
        return relay.response
    reply = web.Response(status=outcome.status, body=outcome.payload)
    reply.headers["Content-Type"] = outcome.content_type
    if retry_after is not None:
        reply.headers["Retry-After"] = retry_after
    log.finish()
    return reply


async def _keep_alive(response: web.StreamResponse) -> None:
    while True:
        await asyncio.sleep(KEEPALIVE_SECONDS)
        await response.write(_KEEPALIVE)
