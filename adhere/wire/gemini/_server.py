"""The server side of Gemini ``generateContent``, as Gemini CLI uses it.

Routes: ``POST /v1beta/models/{model}:generateContent`` and
``POST /v1beta/models/{model}:streamGenerateContent`` (server-sent events with
``?alt=sse``, else one JSON array of chunks). The model comes from the path.

Requests map to the neutral form like this:

- ``systemInstruction`` (its text parts) is the system text;
- ``user`` contents become user messages; their ``functionResponse`` parts become
  ``tool`` messages placed before the turn's text;
- ``model`` contents become assistant messages: text parts are the content, parts
  marked ``thought`` the reasoning, ``functionCall`` parts the tool calls;
- Gemini calls may carry no id. A call without one gets a stable synthetic id from
  its position (``gemini_call_<turn>_<index>``); a ``functionResponse`` is matched to
  the open call with its id, else to the first open call of its name, else to the
  first open call, so the neutral form never depends on ids a client made up;
- a ``functionResponse.response`` of the form ``{"output": "…"}`` (or ``error``,
  ``content``, ``result``) becomes that string, anything else its JSON;
- ``functionDeclarations`` map to :class:`ToolSpec`; ``parametersJsonSchema`` is kept
  as it is, ``parameters`` (OpenAPI-style, upper-case types) gets lower-case types.
  Other tools (``googleSearch``, ``codeExecution``, …) are ignored.

Replies carry the policy's call ids in ``functionCall.id``. Errors use Google's
error document ``{"error": {"code", "message", "status", "details"}}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from adhere.core import ChatMessage, ToolCall, ToolSpec
from adhere.wire._exchange import ApiName
from adhere.wire._json import (
    WireFormatError,
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    join_text,
    require,
)
from adhere.wire._server_codec import DecodedRequest, Outgoing, Target
from adhere.wire._sse import encode_sse

__all__ = ["GeminiCodec"]

_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    422: "FAILED_PRECONDITION",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_RESPONSE_KEYS = ("output", "error", "content", "result")
_FINISH = {
    "end": "STOP",
    "tool_calls": "STOP",
    "max_tokens": "MAX_TOKENS",
    "stop_sequence": "STOP",
    "refusal": "SAFETY",
    "other": "OTHER",
}


class GeminiCodec:
    """Gemini ``generateContent`` as the scripted policy server speaks it."""

    api: ApiName = "gemini"

    def decode(self, body: dict[str, Any], target: Target | None = None) -> DecodedRequest:
        """Decode a ``generateContent`` body; the model and streaming come from the URL."""
        target = target or Target()
        if not target.model:
            raise WireFormatError("the path names no model (models/{model}:generateContent)")
        config = as_object(body.get("generationConfig") or {}, "generationConfig")
        if config.get("maxOutputTokens") is not None:
            if as_int(config["maxOutputTokens"], "generationConfig.maxOutputTokens") < 1:
                raise WireFormatError("must be at least 1", "generationConfig.maxOutputTokens")
        contents = as_list(require(body, "contents", ""), "contents")
        if not contents:
            raise WireFormatError("at least one content is required", "contents")
        history = _History()
        for index, raw in enumerate(contents):
            history.add(as_object(raw, f"contents[{index}]"), f"contents[{index}]")
        return DecodedRequest(
            model=target.model,
            system=_system(body.get("systemInstruction")),
            messages=tuple(history.messages),
            tools=_tools(body.get("tools")),
            stream=target.stream and target.sse,
            stream_as_array=target.stream and not target.sse,
        )

    def reply_body(self, out: Outgoing) -> Any:
        """A ``GenerateContentResponse``, or the array of chunks for a non-SSE stream."""
        if out.request is not None and out.request.stream_as_array:
            return list(self._chunks(out))
        return self._chunk(out, self._parts(out), final=True)

    def reply_events(self, out: Outgoing, include_usage: bool) -> Iterator[bytes]:
        """``data: {GenerateContentResponse}`` chunks; the last has the finish reason."""
        for chunk in self._chunks(out):
            yield encode_sse(json.dumps(chunk, ensure_ascii=False))

    def error_body(self, status: int, message: str, param: str | None = None) -> dict[str, Any]:
        """``{"error": {"code", "message", "status", "details"}}``."""
        kind = _STATUS.get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT")
        details = []
        if param:
            violation = {"field": param, "description": message}
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [violation],
                }
            )
        return {"error": {"code": status, "message": message, "status": kind, "details": details}}

    def _chunks(self, out: Outgoing) -> Iterator[dict[str, Any]]:
        """Thoughts and text a few words a chunk, each call whole, the last chunk final."""
        pieces: list[dict[str, Any]] = []
        for part in self._parts(out):
            if "text" in part and part["text"]:
                pieces.extend({**part, "text": piece} for piece in out.text_deltas(part["text"]))
            else:
                pieces.append(part)
        for index, piece in enumerate(pieces):
            yield self._chunk(out, [piece], final=index == len(pieces) - 1)

    @staticmethod
    def _parts(out: Outgoing) -> list[dict[str, Any]]:
        reply = out.reply
        parts: list[dict[str, Any]] = []
        if reply.reasoning:
            parts.append({"text": reply.reasoning, "thought": True})
        if reply.text or not reply.tool_calls:
            parts.append({"text": reply.text})
        parts.extend(
            {"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
            for call in reply.tool_calls
        )
        return parts

    @staticmethod
    def _chunk(out: Outgoing, parts: list[dict[str, Any]], *, final: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        chunk: dict[str, Any] = {"candidates": [candidate]}
        if final:
            candidate["finishReason"] = _FINISH[out.stop_reason()]
            thoughts = out.usage.reasoning_tokens
            chunk["usageMetadata"] = {
                "promptTokenCount": out.usage.input_tokens,
                "candidatesTokenCount": out.usage.output_tokens - (thoughts or 0),
                "totalTokenCount": out.usage.input_tokens + out.usage.output_tokens,
            }
            if thoughts is not None:
                chunk["usageMetadata"]["thoughtsTokenCount"] = thoughts
        chunk["modelVersion"] = out.model
        chunk["responseId"] = out.ident
        return chunk


@dataclass
class _History:
    """Contents folded into neutral messages, pairing function responses with calls."""

    messages: list[ChatMessage] = field(default_factory=list)
    open_calls: list[ToolCall] = field(default_factory=list)
    turns: int = 0

    def add(self, content: dict[str, Any], where: str) -> None:
        role = as_str(content.get("role") or "user", f"{where}.role")
        parts = as_list(require(content, "parts", where), f"{where}.parts")
        if role == "model":
            self._model(parts, f"{where}.parts")
        elif role in ("user", "function"):
            self._user(parts, f"{where}.parts")
        else:
            raise WireFormatError(
                f"unsupported role {role!r} (expected user or model)", f"{where}.role"
            )

    def _model(self, parts: list[Any], where: str) -> None:
        texts: list[str] = []
        thoughts: list[str] = []
        calls: list[ToolCall] = []
        for index, raw in enumerate(parts):
            path = f"{where}[{index}]"
            part = as_object(raw, path)
            if "functionCall" in part:
                call = as_object(part["functionCall"], f"{path}.functionCall")
                name = as_str(require(call, "name", f"{path}.functionCall"), f"{path}.name")
                given = call.get("id")
                ident = (
                    as_str(given, f"{path}.functionCall.id")
                    if given
                    else f"gemini_call_{self.turns}_{len(calls)}"
                )
                arguments = as_object(call.get("args") or {}, f"{path}.functionCall.args")
                calls.append(ToolCall(id=ident, name=name, arguments=arguments))
            elif "text" in part:
                text = as_str(part["text"], f"{path}.text")
                thought = as_bool(part.get("thought", False), f"{path}.thought")
                (thoughts if thought else texts).append(text)
            else:
                raise _unsupported(part, path)
        self.turns += 1
        self.open_calls = list(calls)
        self.messages.append(
            ChatMessage(
                role="assistant",
                content=join_text(texts),
                tool_calls=tuple(calls),
                reasoning=join_text(thoughts),
            )
        )

    def _user(self, parts: list[Any], where: str) -> None:
        texts: list[str] = []
        for index, raw in enumerate(parts):
            path = f"{where}[{index}]"
            part = as_object(raw, path)
            if "functionResponse" in part:
                answer = as_object(part["functionResponse"], f"{path}.functionResponse")
                name = as_str(require(answer, "name", f"{path}.functionResponse"), f"{path}.name")
                given = answer.get("id")
                ident = self._match(name, given if isinstance(given, str) else None, index)
                content = _response_text(answer.get("response"))
                self.messages.append(ChatMessage(role="tool", content=content, tool_call_id=ident))
            elif "text" in part:
                texts.append(as_str(part["text"], f"{path}.text"))
            else:
                raise _unsupported(part, path)
        if texts or not parts:
            self.messages.append(ChatMessage(role="user", content=join_text(texts)))

    def _match(self, name: str, given: str | None, position: int) -> str:
        """The id of the open call a response answers: by id, then name, then order."""
        chosen = next((call for call in self.open_calls if given and call.id == given), None)
        if chosen is None:
            chosen = next((call for call in self.open_calls if call.name == name), None)
        if chosen is None and self.open_calls:
            chosen = self.open_calls[0]
        if chosen is None:
            return f"gemini_response_{self.turns}_{position}"
        self.open_calls.remove(chosen)
        return chosen.id


def _unsupported(part: dict[str, Any], where: str) -> WireFormatError:
    kinds = ", ".join(sorted(part)) or "nothing"
    return WireFormatError(
        f"unsupported part ({kinds}); expected text, functionCall or functionResponse", where
    )


def _response_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if key in _RESPONSE_KEYS and isinstance(inner, str):
            return inner
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _system(value: Any) -> str:
    """``systemInstruction``: a content (its text parts), or a plain string."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    content = as_object(value, "systemInstruction")
    texts = []
    for index, raw in enumerate(as_list(content.get("parts") or [], "systemInstruction.parts")):
        where = f"systemInstruction.parts[{index}]"
        texts.append(as_str(as_object(raw, where).get("text", ""), f"{where}.text"))
    return join_text(texts)


def _tools(raw: Any) -> tuple[ToolSpec, ...]:
    tools = []
    for index, item in enumerate(as_list(raw or [], "tools")):
        where = f"tools[{index}]"
        tool = as_object(item, where)
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        for position, entry in enumerate(
            as_list(declarations or [], f"{where}.functionDeclarations")
        ):
            path = f"{where}.functionDeclarations[{position}]"
            declaration = as_object(entry, path)
            if declaration.get("parametersJsonSchema") is not None:
                schema = as_object(
                    declaration["parametersJsonSchema"], f"{path}.parametersJsonSchema"
                )
            elif declaration.get("parameters") is not None:
                schema = _lower_types(as_object(declaration["parameters"], f"{path}.parameters"))
            else:
                schema = {"type": "object"}
            tools.append(
                ToolSpec(
                    name=as_str(require(declaration, "name", path), f"{path}.name"),
                    description=as_str(declaration.get("description") or "", f"{path}.description"),
                    parameters=schema,
                )
            )
    return tuple(tools)


def _lower_types(value: Any) -> Any:
    """An OpenAPI-style Gemini schema with JSON Schema's lower-case type names."""
    if isinstance(value, dict):
        return {
            key: inner.lower() if key == "type" and isinstance(inner, str) else _lower_types(inner)
            for key, inner in value.items()
        }
    if isinstance(value, list):
        return [_lower_types(inner) for inner in value]
    return value
