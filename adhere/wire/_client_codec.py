"""What the HTTP client needs from an API's wire format (one implementation per API)."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from adhere.core import ChatMessage, Usage
from adhere.spec import Endpoint
from adhere.wire._exchange import ChatRequest
from adhere.wire._reassemble_base import Api
from adhere.wire._sampling import Sampling, write_sampling
from adhere.wire._sse import SseEvent

__all__ = ["ParsedReply", "StreamAssembler", "Wire", "add_reasoning", "add_sampling", "output_cap"]


class ParsedReply(NamedTuple):
    """A provider reply translated to neutral types."""

    message: ChatMessage
    usage: Usage
    stop_reason: str
    model: str


class StreamAssembler(Protocol):
    """Rebuilds a non-streaming reply document from a stream's events."""

    @property
    def finished(self) -> bool:
        """Whether the stream's terminating event has arrived."""
        ...

    @property
    def complete(self) -> bool:
        """Whether enough arrived for a whole reply (``finished`` or close to it)."""
        ...

    def feed(self, event: SseEvent) -> None:
        """Consume one event.

        Raises:
            WireFormatError: The event does not parse.
            StreamFailure: The stream reported an error.
        """
        ...

    def result(self) -> dict[str, Any]:
        """The reply in the same shape as the API's non-streaming response."""
        ...


class Wire(Protocol):
    """One API's URL, headers, request body and reply format."""

    api: str

    def url(self, base_url: str) -> str:
        """URL of the chat operation under ``base_url``."""
        ...

    def headers(self, api_key: str | None) -> dict[str, str]:
        """Request headers, carrying the key when there is one."""
        ...

    def build_body(self, request: ChatRequest, endpoint: Endpoint, stream: bool) -> dict[str, Any]:
        """JSON body of the request."""
        ...

    def parse_reply(self, data: dict[str, Any]) -> ParsedReply:
        """Translate a non-streaming response body (raises ``WireFormatError``)."""
        ...

    def assembler(self) -> StreamAssembler:
        """A fresh stream assembler."""
        ...


def add_sampling(
    body: dict[str, Any],
    request: ChatRequest,
    endpoint: Endpoint,
    tools: list[dict[str, Any]],
    stream: bool,
) -> None:
    """Add what every API's body ends with: temperature, the tools offered, ``stream``.

    The temperature is the request's, else the endpoint's, and left out when neither
    sets one; ``tools`` (already in the API's shape) is left out when empty.
    """
    temperature = request.temperature if request.temperature is not None else endpoint.temperature
    if temperature is not None:
        body["temperature"] = temperature
    if tools:
        body["tools"] = tools
    body["stream"] = stream


def output_cap(request: ChatRequest, endpoint: Endpoint) -> int:
    """The output cap a request goes out with.

    The request's own cap, else the endpoint's ``max_tokens``. A request's own cap is
    meant for the answer (a judge sizes its batches by it), so with the endpoint's
    reasoning on, the thinking budget is added to it (the thinking counts against the
    cap in every API). The endpoint's ``max_tokens`` bounds every call: what a user set
    there (to bound a weak local model, or spend) is never exceeded.
    """
    if request.max_tokens is None:
        return endpoint.max_tokens
    budget = endpoint.reasoning.budget if endpoint.reasoning is not None else 0
    return min(endpoint.max_tokens, request.max_tokens + budget)


def add_reasoning(api: Api, body: dict[str, Any], endpoint: Endpoint) -> None:
    """Add the endpoint's reasoning setting to a finished body in ``api``'s shape.

    As the recording proxy writes it (:func:`~adhere.wire.write_sampling`): an effort
    for the OpenAI shapes (a budget's nearest), a thinking budget for Anthropic and
    Gemini (an effort's budget); Anthropic with thinking on drops a temperature other
    than 1, which the API refuses.
    """
    reasoning = endpoint.reasoning
    if reasoning is None:
        return
    sampling = Sampling(
        max_tokens=_int(body.get("max_tokens")),
        reasoning_effort=reasoning.effort,
        thinking_budget=reasoning.budget_tokens,
    )
    write_sampling(api, body, sampling, has_tools=False)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
