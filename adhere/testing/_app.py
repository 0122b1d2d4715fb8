"""The policy server's aiohttp application: routing, auth, fault injection, answering.

Routes (each also served under a ``/t/<trial>/`` prefix, which is stripped and
counted per trial): ``POST /v1/chat/completions``, ``POST /v1/messages``,
``POST /v1/responses``, ``POST /v1beta/models/{model}:generateContent`` and
``:streamGenerateContent``, ``GET /v1/models``, ``GET /healthz``,
``GET /_adhere/stats``.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from adhere.errors import UnknownConversation
from adhere.testing._builtin import default_registry
from adhere.testing._model_string import (
    ModelString,
    ModelStringError,
    PolicyNotFound,
    parse_model_string,
)
from adhere.testing._registry import PolicyContext, PolicyRegistry
from adhere.testing._routing import resolve
from adhere.testing._scripts import ScriptStep
from adhere.testing._stats import ServerStats
from adhere.testing._types import AnswerKey, Policy, ReplaySource
from adhere.wire import (
    PROBE_TEXT,
    SSE_CONTENT_TYPE,
    ApiCodec,
    Conversation,
    DecodedRequest,
    Outgoing,
    Reply,
    Target,
    WireFormatError,
    model_list,
    parse_json_object,
    reply_usage,
)
from adhere.wire.anthropic import AnthropicCodec
from adhere.wire.gemini import GeminiCodec
from adhere.wire.openai_chat import OpenAICodec
from adhere.wire.openai_responses import ResponsesCodec

__all__ = ["STATS_KEY", "PolicyServerConfig", "create_app"]

logger = logging.getLogger(__name__)

STATS_KEY = web.AppKey("adhere_policy_stats", ServerStats)
_MAX_BODY = 64 * 1024 * 1024


@dataclass
class PolicyServerConfig:
    """Settings of the scripted policy server (a test double standing in for models).

    Attributes:
        answer_key: Perfect answers for ``oracle`` and ``noisy``; without one those
            policies answer 404.
        replay: Recorded replies for ``replay``; without one it answers 404.
        scripts: Scripts for ``script:NAME``, by name (see :func:`load_scripts`).
        require_api_key: When set, chat and model-list requests must carry this key as
            ``Authorization: Bearer``, ``x-api-key``, ``x-goog-api-key`` or the query
            parameter ``key``, or get 401. Kept out of ``repr``.
        registry: Policies by name; defaults to the built-ins.
    """

    answer_key: AnswerKey | None = None
    replay: ReplaySource | None = None
    scripts: Mapping[str, Sequence[ScriptStep]] = field(default_factory=dict)
    require_api_key: str | None = field(default=None, repr=False)
    registry: PolicyRegistry | None = None


def create_app(config: PolicyServerConfig) -> web.Application:
    """Build the aiohttp application of the scripted policy server (a test double)."""
    service = _Service(config)
    app = web.Application(client_max_size=_MAX_BODY)
    app[STATS_KEY] = service.stats
    app.router.add_route("*", "/{tail:.*}", service.handle)
    return app


class _Reject(Exception):
    """An error answer: status, message, offending field and extra headers."""

    def __init__(
        self,
        status: int,
        message: str,
        param: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.headers = dict(headers or {})


async def _held_until(release: str) -> None:
    """Wait until the file ``release`` exists (forever when none is named)."""
    while not (release and Path(release).exists()):
        await asyncio.sleep(0.02)


class _Service:
    def __init__(self, config: PolicyServerConfig) -> None:
        self.config = config
        self.registry = config.registry if config.registry is not None else default_registry()
        self.context = PolicyContext(config.answer_key, config.replay, config.scripts)
        self.stats = ServerStats()
        self._policies: dict[str, tuple[ModelString, Policy]] = {}
        self._attempts: dict[tuple[str, str, str], int] = {}
        self._buckets: dict[str, tuple[float, float]] = {}
        self._answered: dict[str, int] = {}
        self._codecs: dict[str, ApiCodec] = {
            codec.api: codec
            for codec in (OpenAICodec(), AnthropicCodec(), ResponsesCodec(), GeminiCodec())
        }

    async def handle(self, request: web.Request) -> web.StreamResponse:
        route = resolve(request.rel_url.raw_path, dict(request.query))
        codec = self._codecs[route.api]
        if route.kind == "none":
            return _error(codec, _Reject(404, f"no route {request.method} {route.path}"))
        if request.method != route.method:
            allow = {"Allow": route.method}
            return _error(codec, _Reject(405, f"{route.path} takes {route.method}", headers=allow))
        if route.kind == "chat":
            return await self._chat(request, codec, route.trial, route.target)
        if route.kind == "health":
            return web.json_response({"status": "ok"})
        if route.kind == "stats":
            return web.json_response(self.stats.snapshot())
        try:
            self._authorize(request)
        except _Reject as reject:
            return _error(codec, reject)
        return web.json_response(self._models())

    async def _chat(
        self, request: web.Request, codec: ApiCodec, trial: str | None, target: Target
    ) -> web.StreamResponse:
        self.stats.begin(codec.api, trial)
        model: str | None = None
        status = 500
        try:
            try:
                self._authorize(request)
                body = _parse_body(await request.read())
                if target.model:
                    model = target.model
                elif isinstance(body.get("model"), str):
                    model = body["model"]
                decoded = _decode(codec, body, target)
                response = await self._answer(request, codec, decoded, trial)
            except _Reject as reject:
                response = _error(codec, reject)
            status = response.status
            return response
        finally:
            self.stats.end(model, status)

    async def _answer(
        self, request: web.Request, codec: ApiCodec, decoded: DecodedRequest, trial: str | None
    ) -> web.StreamResponse:
        selected, policy = self._select(decoded.model)
        conversation = Conversation(
            model=decoded.model,
            policy=selected.policy,
            options=selected.options,
            system=decoded.system,
            messages=decoded.messages,
            tools=decoded.tools,
            api=codec.api,
        )
        if _is_probe(decoded):
            reply = Reply(text="pong")  # the endpoint check before a run: up, key and model ok
        else:
            await self._inject_faults(selected, conversation, trial)
            reply = _respond(policy, conversation)
        outgoing = Outgoing(
            reply=reply,
            model=decoded.model,
            ident=conversation.digest[:24],
            created=int(time.time()),
            usage=reply_usage(decoded, reply),
            request=decoded,
        )
        return await self._send(request, codec, decoded, outgoing)

    def _authorize(self, request: web.Request) -> None:
        expected = self.config.require_api_key
        if expected is None:
            return
        given = request.headers.get("x-api-key") or request.headers.get("x-goog-api-key")
        bearer = request.headers.get("Authorization", "")
        if not given and bearer[:7].lower() == "bearer ":
            given = bearer[7:].strip()
        if not given:
            given = request.query.get("key")
        if not given:
            raise _Reject(
                401,
                "missing API key (send 'Authorization: Bearer …', 'x-api-key', "
                "'x-goog-api-key' or '?key=')",
            )
        if not hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8")):
            raise _Reject(401, "invalid API key")

    def _select(self, model: str) -> tuple[ModelString, Policy]:
        cached = self._policies.get(model)
        if cached is not None:
            return cached
        try:
            parsed = parse_model_string(model)
            policy = self.registry.create(parsed, self.context)
        except ModelStringError as exc:
            raise _Reject(400, str(exc), "model") from None
        except PolicyNotFound as exc:
            raise _Reject(404, str(exc), "model") from None
        self._policies[model] = (parsed, policy)
        return parsed, policy

    async def _inject_faults(
        self, selected: ModelString, conversation: Conversation, trial: str | None
    ) -> None:
        faults = selected.faults
        if faults.hold_after is not None:
            answered = self._answered.get(selected.text, 0)
            self._answered[selected.text] = answered + 1
            if answered >= faults.hold_after:
                await _held_until(faults.release)
        if faults.rps > 0:
            self._take_token(selected.text, faults.rps)
        if faults.delay > 0:
            await asyncio.sleep(faults.delay)
        if faults.fail_first <= 0:
            return
        key = (trial or "", selected.text, conversation.digest)
        seen = self._attempts.get(key, 0)
        self._attempts[key] = seen + 1
        if seen < faults.fail_first:
            raise _Reject(
                faults.fail_status,
                f"injected failure {seen + 1} of {faults.fail_first} (fail_first test option)",
                headers={"Retry-After": f"{faults.retry_after:g}"},
            )

    def _take_token(self, model: str, rate: float) -> None:
        """Enforce the ``rps`` option: a token bucket of one second's worth, per model."""
        now = time.monotonic()
        tokens, last = self._buckets.get(model, (rate, now))
        tokens = min(rate, tokens + (now - last) * rate)
        if tokens < 1.0:
            self._buckets[model] = (tokens, now)
            wait = (1.0 - tokens) / rate
            raise _Reject(
                429,
                f"rate limit of {rate:g} requests per second exceeded (rps test option)",
                headers={"Retry-After": f"{wait:.3f}"},
            )
        self._buckets[model] = (tokens - 1.0, now)

    @staticmethod
    async def _send(
        request: web.Request, codec: ApiCodec, decoded: DecodedRequest, outgoing: Outgoing
    ) -> web.StreamResponse:
        if not decoded.stream:
            return web.json_response(codec.reply_body(outgoing))
        response = web.StreamResponse(
            status=200,
            headers={
                "Content-Type": SSE_CONTENT_TYPE,
                "Cache-Control": "no-cache",
            },
        )
        await response.prepare(request)
        for chunk in codec.reply_events(outgoing, decoded.include_usage):
            await response.write(chunk)
        await response.write_eof()
        return response

    def _models(self) -> dict[str, Any]:
        names = [name for name in self.registry.names() if name != "script"]
        if "script" in self.registry:
            names.extend(f"script:{name}" for name in sorted(self.context.scripts))
        return model_list(names)


def _is_probe(decoded: DecodedRequest) -> bool:
    """Whether the request is ``adhere run``'s endpoint check (:func:`adhere.wire.probe_call`).

    Every policy answers it, before any fault option applies: a scripted endpoint that
    is up, accepts the key and knows the model passes the check, as a real one would.
    """
    messages = decoded.messages
    return (
        not decoded.system
        and not decoded.tools
        and len(messages) == 1
        and messages[0].role == "user"
        and messages[0].content == PROBE_TEXT
    )


def _respond(policy: Policy, conversation: Conversation) -> Reply:
    try:
        return policy.respond(conversation)
    except UnknownConversation as exc:
        raise _Reject(422, str(exc)) from None
    except Exception as exc:
        logger.exception("policy %r failed", conversation.model)
        raise _Reject(
            500, f"policy {conversation.policy!r} failed: {type(exc).__name__}: {exc}"
        ) from None


def _parse_body(raw: bytes) -> dict[str, Any]:
    try:
        return parse_json_object(raw, "request body")
    except WireFormatError as exc:
        raise _Reject(400, str(exc)) from None


def _decode(codec: ApiCodec, body: dict[str, Any], target: Target) -> DecodedRequest:
    try:
        return codec.decode(body, target)
    except WireFormatError as exc:
        raise _Reject(400, str(exc), exc.field or None) from None


def _error(codec: ApiCodec, reject: _Reject) -> web.Response:
    body = codec.error_body(reject.status, reject.message, reject.param)
    return web.json_response(body, status=reject.status, headers=reject.headers)
