"""Watching a relayed SSE stream for its end, cheaply, while it passes through the proxy.

The recording proxy relays a stream chunk by chunk and reassembles it only once the
call is over. To know *while relaying* whether the reply is whole, it feeds each chunk
to a :class:`StreamEnd`, which splits lines and parses only the few ``data:`` lines
that may carry an end (a substring test first: a quoted event name cannot occur
unescaped inside a JSON string), so relaying is not slowed.

Two levels of "the end":

- **final**: the API's last event arrived, with the blank line that dispatches it;
  nothing may follow. Anthropic ``message_stop``, OpenAI Chat ``data: [DONE]``, OpenAI
  Responses ``response.completed`` / ``.incomplete`` / ``.failed``. Gemini has no such
  event.
- **ended**: the reply is whole: final, or a Chat choice has a finish reason, or a
  Gemini candidate has a ``finishReason``.
"""

from __future__ import annotations

import json
from typing import Any

from adhere.wire._reassemble_base import Api

__all__ = ["StreamEnd"]

_RESPONSES_FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_RESPONSES_MARKS = tuple(f'"{kind}"'.encode() for kind in sorted(_RESPONSES_FINAL))
_MAX_LINE = 1 << 20  # a longer line is not an end event; keep only its tail in memory


class StreamEnd:
    """Feeds on a stream's bytes; tells whether its final event (or its reply's end) passed.

    Args:
        api: The stream's API shape.
    """

    def __init__(self, api: Api) -> None:
        self.api = api
        self.final = False
        """The API's last event has been fed whole (see the module doc)."""
        self.ended = False
        """The reply is whole: final, or a finish reason arrived (see the module doc)."""
        self._pending = b""
        self._final_event = False  # a final data line waits for its dispatching blank line

    def feed(self, chunk: bytes) -> None:
        """Consume the next bytes of the stream (cut anywhere)."""
        if self.final:
            return
        data = self._pending + chunk
        lines = data.split(b"\n")
        self._pending = lines.pop()[-_MAX_LINE:]
        for raw in lines:
            line = raw.rstrip(b"\r")
            if not line:
                if self._final_event:
                    self.final = self.ended = True
                    return
            elif line.startswith(b"data:"):
                self._data(line[5:].strip())

    def _data(self, data: bytes) -> None:
        if self.api == "openai-chat":
            if data == b"[DONE]":
                self._final_event = True
            elif data.count(b'"finish_reason"') > _nulls(data) and _chat_finished(_json(data)):
                self.ended = True
        elif self.api == "anthropic":
            if b'"message_stop"' in data and _kind(_json(data)) == "message_stop":
                self._final_event = True
        elif self.api == "openai-responses":
            if any(m in data for m in _RESPONSES_MARKS) and _kind(_json(data)) in _RESPONSES_FINAL:
                self._final_event = True
        elif b'"finishReason"' in data:
            candidates = (_json(data) or {}).get("candidates")
            if isinstance(candidates, list) and any(
                isinstance(c, dict) and c.get("finishReason") for c in candidates
            ):
                self.ended = True


def _json(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _nulls(data: bytes) -> int:
    """How many Chat choices in the chunk say ``"finish_reason": null`` (no JSON parsing)."""
    return data.count(b'"finish_reason":null') + data.count(b'"finish_reason": null')


def _chat_finished(chunk: dict[str, Any] | None) -> bool:
    choices = (chunk or {}).get("choices")
    return isinstance(choices, list) and any(
        isinstance(c, dict) and c.get("finish_reason") is not None for c in choices
    )


def _kind(data: dict[str, Any] | None) -> Any:
    return data.get("type") if data is not None else None
