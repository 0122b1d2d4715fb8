"""The HTTP model client: one attempt at a time through the limiter, retried with back-off.

Failure policy:

* 429, any 5xx, timeouts, connection errors, stream error events and streams that
  break off before their end are retried (the whole call, also for streams), up to
  ``limits.max_retries`` times, waiting as :func:`backoff_delay` says.
* Other statuses (400, 401, 404, 422 …) fail at once with :class:`ModelCallError`.
* A 2xx reply that does not parse as the API's reply fails at once with
  :class:`ModelReplyError`: the same request would most likely get the same
  answer, so retrying would only spend budget.

The transport is aiohttp (see :mod:`adhere.models._session`): httpx's connection pool
spends CPU per request that grows with the connections it holds (about 23 ms a
request at 64 in flight against 0.6 ms for aiohttp, measured with the judge bench's
prompts), which capped judge throughput below endpoints' rate limits.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, NoReturn

import aiohttp

from adhere.errors import ModelCallError, ModelReplyError
from adhere.models._backoff import backoff_delay, parse_retry_after
from adhere.models._limiter import EndpointLimiter
from adhere.models._providers import provider_for
from adhere.models._secrets import resolve_api_key
from adhere.models._session import env_proxy, new_session
from adhere.models._types import CallRecord, ChatResponse, OnCall
from adhere.spec import Endpoint
from adhere.wire import (
    ChatRequest,
    ParsedReply,
    StreamFailure,
    Wire,
    WireFormatError,
    error_detail,
    iter_lines,
    iter_sse,
    parse_json_object,
)

__all__ = ["HttpModelClient"]

logger = logging.getLogger(__name__)

_REDACTED = "[redacted]"
_DRAIN_SECONDS = 2.0
"""How long a finished stream's remaining bytes (the body's end) are waited for."""


class _Failure(Exception):
    """One failed attempt: what to record and whether to try again."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool,
        retry_after: float | None = None,
        response: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.response = response


class _State:
    """What one attempt has learnt so far, for its call record."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.document: dict[str, Any] | None = None


class HttpModelClient:
    """A :class:`ModelClient` over aiohttp for one endpoint and one wire format.

    The API key is read once, here; it is sent in headers only and kept out of
    ``repr``, logs, errors and call records (text that echoes it is redacted).

    A client belongs to one event loop, like its limiter: the session it owns is
    opened by its first call and closed by :meth:`aclose`. Proxies named by
    ``HTTPS_PROXY`` / ``HTTP_PROXY`` (and ``NO_PROXY``) are honoured; they are looked
    up once, here.

    Args:
        endpoint: The endpoint to call.
        wire: The API's wire format.
        http: An ``aiohttp.ClientSession`` to use (and not close); by default the
            client owns one.
        on_call: Called with a :class:`CallRecord` after every HTTP attempt.
        env: Environment to read the key from; defaults to ``os.environ``.
        limiter: Limiter to share with other clients; by default a private one.

    Raises:
        SecretError: The key cannot be read.
        ValueError: ``endpoint.base_url`` still names a model provider (``scripted``).
    """

    def __init__(
        self,
        endpoint: Endpoint,
        wire: Wire,
        *,
        http: aiohttp.ClientSession | None = None,
        on_call: OnCall | None = None,
        env: Mapping[str, str] | None = None,
        limiter: EndpointLimiter | None = None,
    ) -> None:
        served_by = provider_for(endpoint)
        if served_by is not None:
            raise ValueError(
                f"endpoint base_url {endpoint.base_url!r} must be replaced by the URL of a "
                f"running {served_by.description} before a client is opened"
            )
        self.endpoint = endpoint
        self._wire = wire
        self._url = wire.url(endpoint.base_url)
        key = resolve_api_key(endpoint.api_key, env)
        self._secret = key
        self._headers = wire.headers(key)
        self._on_call = on_call
        self._limiter = limiter if limiter is not None else EndpointLimiter(endpoint.limits)
        self._proxy, self._proxy_headers = env_proxy(self._url)
        self._timeout = aiohttp.ClientTimeout(total=endpoint.limits.timeout_seconds)
        self._owns_http = http is None
        self._http = http

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(api={self._wire.api!r}, "
            f"base_url={self.endpoint.base_url!r}, model={self.endpoint.model!r})"
        )

    async def aclose(self) -> None:
        """Close the HTTP session if this client opened it."""
        if self._owns_http and self._http is not None:
            session, self._http = self._http, None
            await session.close()

    def _session(self) -> aiohttp.ClientSession:
        if self._http is None:
            self._http = new_session(self.endpoint.limits.concurrency)
        return self._http

    async def __aenter__(self) -> HttpModelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Ask the model for one reply (see the module docstring for retries).

        Raises:
            ModelCallError: Every attempt failed, or one failed in a way not retried.
            ModelReplyError: The endpoint's reply does not parse.
        """
        stream = request.stream if request.stream is not None else self.endpoint.stream
        body = self._wire.build_body(request, self.endpoint, stream)
        limits = self.endpoint.limits
        allowed = limits.max_retries + 1
        began = time.monotonic()
        for attempt in range(1, allowed + 1):
            try:
                async with self._limiter.slot():
                    reply = await self._attempt(body, stream, attempt)
            except _Failure as failure:
                if not failure.retryable or attempt == allowed:
                    raise self._final_error(failure, attempt) from None
                delay = backoff_delay(attempt, limits, retry_after=failure.retry_after)
                logger.debug(
                    "%s call to %s failed (attempt %d of %d, status %s): %s; retrying in %.3fs",
                    self._wire.api,
                    self._url,
                    attempt,
                    allowed,
                    failure.status,
                    failure,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            return ChatResponse(
                message=reply.message,
                usage=reply.usage,
                stop_reason=reply.stop_reason,
                model=reply.model,
                latency_seconds=time.monotonic() - began,
                attempts=attempt,
            )
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _final_error(self, failure: _Failure, attempts: int) -> ModelCallError:
        tries = "attempt" if attempts == 1 else "attempts"
        verdict = "" if failure.retryable else " (not retried)"
        return ModelCallError(
            f"{self._wire.api} call to {self._url} failed after {attempts} {tries}"
            f"{verdict}: {failure}",
            status=failure.status,
            endpoint=self.endpoint.base_url,
        )

    async def _attempt(self, body: dict[str, Any], stream: bool, attempt: int) -> ParsedReply:
        started_at = datetime.now(UTC).isoformat()
        began = time.monotonic()
        state = _State()

        def record(error: str | None, reply: ParsedReply | None = None) -> None:
            if self._on_call is None:
                return
            self._on_call(
                CallRecord(
                    api=self._wire.api,
                    url=self._url,
                    request=body,
                    status=state.status,
                    response=self._scrub(state.document),
                    error=error,
                    started_at=started_at,
                    duration_seconds=time.monotonic() - began,
                    attempt=attempt,
                    usage=reply.usage if reply is not None else None,
                    stream=stream,
                )
            )

        try:
            async with asyncio.timeout(self.endpoint.limits.timeout_seconds):
                await self._exchange(body, stream, state)
            assert state.document is not None
            reply = self._wire.parse_reply(state.document)
        except _Failure as failed:
            state.document = failed.response
            record(str(failed))
            raise
        except TimeoutError:
            failure = _Failure(
                f"timed out after {self.endpoint.limits.timeout_seconds:g}s",
                status=state.status,
                retryable=True,
            )
            record(str(failure))
            raise failure from None
        except aiohttp.ClientError as exc:
            # An invalid URL will stay invalid; every other client error is the
            # transport's (refused, reset, broken or malformed responses).
            failure = _Failure(
                self._redact(f"{type(exc).__name__}: {exc}"),
                status=state.status,
                retryable=not isinstance(exc, aiohttp.InvalidURL),
            )
            record(str(failure))
            raise failure from None
        except WireFormatError as exc:
            message = self._redact(f"unexpected reply from {self._url}: {exc}")
            record(message)
            raise ModelReplyError(
                message, status=state.status, endpoint=self.endpoint.base_url
            ) from None
        record(None, reply)
        return reply

    async def _exchange(self, body: dict[str, Any], stream: bool, state: _State) -> None:
        """Send one request; fill ``state`` with the status and the reply document."""
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        async with self._session().post(
            self._url,
            data=payload,
            headers=self._headers,
            proxy=self._proxy,
            proxy_headers=self._proxy_headers,
            timeout=self._timeout,
            allow_redirects=False,
        ) as response:
            state.status = response.status
            if not 200 <= response.status < 300:
                self._check_status(response.status, await response.read(), response.headers)
            if not stream or "application/json" in response.headers.get("content-type", ""):
                # Unstreamed, or the server ignored ``stream`` and answered in one piece.
                state.document = parse_json_object(await response.read(), "reply body")
                return
            assembler = self._wire.assembler()
            try:
                async for event in iter_sse(iter_lines(response.content.iter_any())):
                    assembler.feed(event)
                    if assembler.finished:
                        break
            except StreamFailure as exc:
                raise _Failure(
                    self._redact(str(exc)), status=state.status, retryable=True
                ) from None
            if not assembler.complete:
                raise _Failure(
                    "the stream ended before the reply was complete",
                    status=state.status,
                    retryable=True,
                )
            state.document = assembler.result()
            await _drain(response)

    def _check_status(self, status: int, content: bytes, headers: Mapping[str, str]) -> NoReturn:
        """Raise the :class:`_Failure` of a non-2xx reply."""
        document: dict[str, Any] | None
        try:
            document = parse_json_object(content)
        except WireFormatError:
            document = None
        detail = error_detail(document, content.decode("utf-8", errors="replace"))
        raise _Failure(
            self._redact(f"HTTP {status}: {detail}"),
            status=status,
            retryable=status == 429 or status >= 500,
            retry_after=parse_retry_after(headers),
            response=document,
        )

    def _redact(self, text: str) -> str:
        if self._secret and self._secret in text:
            return text.replace(self._secret, _REDACTED)
        return text

    def _scrub(self, document: dict[str, Any] | None) -> dict[str, Any] | None:
        if document is None or not self._secret:
            return document
        scrubbed = _scrub_value(document, self._secret)
        assert isinstance(scrubbed, dict)
        return scrubbed


async def _drain(response: aiohttp.ClientResponse) -> None:
    """Read what follows a stream's last event, up to the end of the body.

    Servers may end the body a moment after the last event; closing the connection
    before that end would cut the response for anything in between (the recording
    proxy would record a whole reply as cut off by its client). The reply is already
    complete, so a failure here is ignored.
    """
    try:
        async with asyncio.timeout(_DRAIN_SECONDS):
            while await response.content.readany():
                pass
    except (aiohttp.ClientError, TimeoutError):
        logger.debug("the stream's body did not end cleanly after its last event")


def _scrub_value(value: Any, secret: str) -> Any:
    if isinstance(value, str):
        return value.replace(secret, _REDACTED) if secret in value else value
    if isinstance(value, dict):
        return {key: _scrub_value(item, secret) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub_value(item, secret) for item in value]
    return value
