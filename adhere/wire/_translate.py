"""Translating one model call between API shapes, for the recording proxy.

A scaffold speaks one shape (its *client* shape); an endpoint another (the *upstream*
shape). The proxy asks :func:`plan_call` what to send upstream, forwards it, and asks
:func:`translate_answer` what the scaffold gets back. Both go through the neutral
form: the client's request is decoded by its shape's server codec (the one the test
double uses), encoded for the upstream by that shape's request encoder, the upstream's
answer is read by the recorder's reassembler and decoder, and encoded back by the
client shape's server codec. Carried across: the system prompt, text (multi-part text
joined), tool definitions, tool calls and results with their ids, reasoning text,
stop reasons, usage, sampling settings (:mod:`adhere.wire._sampling`), and errors
(status kept, body in the client's shape).

What one shape cannot carry into another (documented in ``docs/proxy.md``):
thinking signatures and encrypted reasoning (reasoning text reaches the client with a
placeholder signature and is not sent back upstream), cache-control marks, server
tools (web search and the like are dropped from the tools offered), and non-text
parts (images, documents: the call is refused with a 400 naming the part).
Streams are translated whole: the upstream streams, and the client's stream is sent
once the upstream's has ended (the proxy keeps the connection alive meanwhile), each
text, reasoning text and argument string in one delta.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, unquote

from adhere.core import ToolCall, ToolSpec, Usage
from adhere.wire._apis import error_detail
from adhere.wire._decode import _DECODERS
from adhere.wire._exchange import FREEFORM_KEY, Reply
from adhere.wire._json import WireFormatError
from adhere.wire._reassemble_base import Api
from adhere.wire._recorded import RecordedAnswer, read_answer
from adhere.wire._sampling import Controls, read_sampling, stop_of, write_sampling
from adhere.wire._server_codec import ApiCodec, DecodedRequest, Outgoing, Target
from adhere.wire._sse import SSE_CONTENT_TYPE
from adhere.wire.anthropic._client import (
    ANTHROPIC_VERSION,
    encode_anthropic_messages,
    encode_anthropic_tools,
)
from adhere.wire.anthropic._server import AnthropicCodec
from adhere.wire.gemini._client import encode_gemini_contents, encode_gemini_tools
from adhere.wire.gemini._server import GeminiCodec
from adhere.wire.openai_chat._client import encode_openai_messages, encode_openai_tools
from adhere.wire.openai_chat._server import OpenAICodec
from adhere.wire.openai_responses._client import encode_responses_input, encode_responses_tools
from adhere.wire.openai_responses._server import ResponsesCodec

__all__ = [
    "CODECS",
    "ClientAnswer",
    "LocalAnswer",
    "Plan",
    "is_chat_call",
    "plan_call",
    "translate_answer",
]

CODECS: dict[Api, ApiCodec] = {
    "anthropic": AnthropicCodec(),
    "openai-chat": OpenAICodec(),
    "openai-responses": ResponsesCodec(),
    "gemini": GeminiCodec(),
}
"""Each shape's server codec: decodes a client's request, encodes what it gets back."""

_GEMINI_PATH = re.compile(r"/models/([^/]+):([A-Za-z]+)$")


@dataclass(frozen=True)
class Plan:
    """A translated call, ready to go upstream.

    Attributes:
        client_api: The scaffold's shape.
        upstream_api: The endpoint's shape.
        request: The client's request, decoded.
        include_usage: The client asked for usage in its stream (Chat Completions).
        path: The API path upstream, with its query (``/v1/messages``,
            ``/v1beta/models/m:streamGenerateContent?alt=sse``).
        body: The request body upstream.
        headers: Headers the shape needs besides auth (content type, API version).
    """

    client_api: Api
    upstream_api: Api
    request: DecodedRequest
    include_usage: bool
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def stream(self) -> bool:
        """Whether the client (and so the upstream) streams."""
        return self.request.stream or self.request.stream_as_array


@dataclass(frozen=True)
class LocalAnswer:
    """An answer the proxy gives itself, in the client's shape (a non-chat operation)."""

    status: int
    body: Any


@dataclass(frozen=True)
class ClientAnswer:
    """What the scaffold gets back, and what the upstream's answer amounted to.

    ``payload`` is ``None`` when the upstream's stream broke off or its reply could
    not be read: the proxy then cuts the client's stream (or answers 502), and
    ``error`` says why. ``client`` is what ``payload`` amounts to (the reply in the
    client shape's non-streaming form, its event count, usage), so the recorder need
    not read back what it just wrote.
    """

    status: int
    content_type: str
    payload: bytes | None
    upstream: RecordedAnswer
    error: str | None = None
    client: RecordedAnswer | None = None


def plan_call(
    client_api: Api,
    path: str,
    query: str,
    body: Any,
    upstream_api: Api,
    *,
    controls: Controls | None = None,
    model: str | None = None,
) -> Plan | LocalAnswer:
    """What to send upstream for a call a scaffold made in another shape.

    Args:
        client_api: The shape the scaffold speaks.
        path: The call's API path (``/v1/messages``, ``/v1beta/models/m:generateContent``).
        query: Its query string.
        body: Its parsed JSON body (``None`` for a GET).
        upstream_api: The endpoint's shape.
        controls: What the endpoint imposes on every call (output cap, temperature,
            reasoning).
        model: The model to ask upstream; ``None`` keeps the one the client named.

    Raises:
        WireFormatError: The request cannot be read or carried (the message names the
            field), or the operation has no counterpart (the message says which).
    """
    local = _local_answer(client_api, path, body, model)
    if local is not None:
        return local
    if not isinstance(body, dict):
        raise WireFormatError(f"expected a JSON object body for {path}")
    target = _target(client_api, path, query)
    request = CODECS[client_api].decode(body, target)
    sampling = read_sampling(client_api, body)
    if controls is not None:
        sampling = controls.impose(sampling)
    name = model or request.model
    stream = request.stream or request.stream_as_array
    upstream_path, upstream_body = _encode(upstream_api, request, name, stream)
    write_sampling(upstream_api, upstream_body, sampling, has_tools=bool(request.tools))
    headers = {"content-type": "application/json"}
    headers["accept"] = SSE_CONTENT_TYPE if stream else "application/json"
    if upstream_api == "anthropic":
        headers["anthropic-version"] = ANTHROPIC_VERSION
    return Plan(
        client_api,
        upstream_api,
        request,
        request.include_usage,
        upstream_path,
        upstream_body,
        headers,
    )


def translate_answer(
    plan: Plan,
    status: int,
    content_type: str,
    body: bytes,
    *,
    ident: str,
    created: int,
) -> ClientAnswer:
    """The client's answer to a translated call, from the upstream's.

    Args:
        plan: The call as planned.
        status: The upstream's HTTP status.
        content_type: The upstream's content type.
        body: The upstream's whole response body (a stream's every byte).
        ident: An id for the reply (``msg_<ident>``, ``chatcmpl-<ident>`` …).
        created: The reply's Unix time.
    """
    upstream = read_answer(plan.upstream_api, status, content_type, body)
    codec = CODECS[plan.client_api]
    if not 200 <= status < 300:
        message = error_detail(_as_object(upstream.response), body.decode("utf-8", "replace"))
        document = codec.error_body(status, f"upstream ({plan.upstream_api}): {message}")
        return ClientAnswer(status, "application/json", _dump(document), upstream)
    if upstream.error is not None:
        return ClientAnswer(status, "", None, upstream, upstream.error)
    decoder = _DECODERS[plan.upstream_api]
    *_, reply = decoder(plan.body, upstream.response)
    if reply is None:
        return ClientAnswer(status, "", None, upstream, "the upstream reply could not be read")
    calls = tuple(
        call
        if call.id
        else ToolCall(id=f"call_{ident}_{n}", name=call.name, arguments=call.arguments)
        for n, call in enumerate(reply.tool_calls)
    )
    usage = upstream.usage or {}
    out = Outgoing(
        reply=Reply(text=reply.content, tool_calls=calls, reasoning=reply.reasoning),
        model=plan.request.model,
        ident=ident,
        created=created,
        usage=Usage(
            input_tokens=int(usage.get("input_tokens", 0)),
            output_tokens=int(usage.get("output_tokens", 0)),
        ),
        request=plan.request,
        stop=stop_of(plan.upstream_api, upstream.response),
        whole_deltas=True,
    )
    document = codec.reply_body(out)
    if plan.client_api == "gemini" and isinstance(document, list):  # a JSON-array stream
        client = read_answer("gemini", 200, "application/json", _dump(document))
        return ClientAnswer(200, "application/json", _dump(document), upstream, client=client)
    client = RecordedAnswer(document, 0, None, upstream.usage)
    if plan.request.stream:
        events = list(codec.reply_events(out, plan.include_usage))
        client = RecordedAnswer(document, len(events), None, upstream.usage)
        return ClientAnswer(200, SSE_CONTENT_TYPE, b"".join(events), upstream, client=client)
    return ClientAnswer(200, "application/json", _dump(document), upstream, client=client)


def _encode(
    api: Api, request: DecodedRequest, model: str, stream: bool
) -> tuple[str, dict[str, Any]]:
    """The upstream path and body (without sampling settings) of a decoded request."""
    messages, system = request.messages, request.system
    tools = request.tools if api == "openai-responses" else _plain_tools(request.tools)
    try:
        if api == "anthropic":
            body: dict[str, Any] = {"model": model, "messages": encode_anthropic_messages(messages)}
            if system:
                body["system"] = system
            if tools:
                body["tools"] = encode_anthropic_tools(tools)
            body["stream"] = stream
            return "/v1/messages", body
        if api == "openai-chat":
            body = {"model": model, "messages": encode_openai_messages(system, messages)}
            if tools:
                body["tools"] = encode_openai_tools(tools)
            body["stream"] = stream
            if stream:
                body["stream_options"] = {"include_usage": True}
            return "/v1/chat/completions", body
        if api == "openai-responses":
            body = {"model": model, "input": encode_responses_input(messages, tools)}
            if system:
                body["instructions"] = system
            if tools:
                body["tools"] = encode_responses_tools(tools)
            body["stream"] = stream
            body["store"] = False
            return "/v1/responses", body
        body = {"contents": encode_gemini_contents(messages)}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        if tools:
            body["tools"] = encode_gemini_tools(tools)
        action = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"/v1beta/models/{quote(model, safe='')}:{action}", body
    except ValueError as exc:  # a message the shape cannot carry (a tool result without id)
        raise WireFormatError(str(exc)) from None


def _plain_tools(tools: tuple[ToolSpec, ...]) -> tuple[ToolSpec, ...]:
    """Free-form tools as ordinary tools taking one string ``input`` (the mark removed)."""
    return tuple(
        tool.model_copy(
            update={"parameters": {k: v for k, v in tool.parameters.items() if k != FREEFORM_KEY}}
        )
        if FREEFORM_KEY in tool.parameters
        else tool
        for tool in tools
    )


def _target(api: Api, path: str, query: str) -> Target | None:
    if api != "gemini":
        return None
    match = _GEMINI_PATH.search(path)
    if match is None:
        raise WireFormatError(f"not a Gemini model path: {path}")
    stream = match.group(2) == "streamGenerateContent"
    sse = parse_qs(query).get("alt", [""])[0] == "sse"
    return Target(model=unquote(match.group(1)), stream=stream, sse=sse)


def is_chat_call(api: Api, path: str) -> bool:
    """Whether a call to ``path`` in ``api``'s shape asks the model for a reply."""
    gemini = _GEMINI_PATH.search(path)
    if api == "gemini":
        return gemini is not None and gemini.group(2) in (
            "generateContent",
            "streamGenerateContent",
        )
    return path.rstrip("/").endswith(_CHAT_PATHS.get(api, "\0"))


_CHAT_PATHS = {
    "anthropic": "/messages",
    "openai-chat": "/chat/completions",
    "openai-responses": "/responses",
}


def _local_answer(api: Api, path: str, body: Any, model: str | None) -> LocalAnswer | None:
    """Operations other than a chat call, answered without the upstream (or refused)."""
    gemini = _GEMINI_PATH.search(path)
    if api == "gemini" and gemini is not None:
        action = gemini.group(2)
        if action == "countTokens":
            return LocalAnswer(200, {"totalTokens": _estimate_tokens(body)})
        if action in ("generateContent", "streamGenerateContent"):
            return None
        raise WireFormatError(f"the Gemini operation {action!r} is not translated")
    if path.rstrip("/").endswith("/models"):
        name = model or "model"
        return LocalAnswer(
            200,
            {
                "object": "list",
                "data": [{"id": name, "object": "model", "type": "model", "display_name": name}],
                "has_more": False,
            },
        )
    if api == "anthropic" and path.endswith("/messages/count_tokens"):
        return LocalAnswer(200, {"input_tokens": _estimate_tokens(body)})
    if is_chat_call(api, path):
        return None
    raise WireFormatError(f"only chat calls are translated, not {path}")


def _estimate_tokens(body: Any) -> int:
    """A rough count (4 characters a token) for token-counting calls under translation."""
    return max(1, len(json.dumps(body, ensure_ascii=False)) // 4)


def _as_object(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _dump(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8")
