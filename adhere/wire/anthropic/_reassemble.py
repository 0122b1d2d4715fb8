"""Anthropic Messages: stream events back into a ``message`` object."""

from __future__ import annotations

import json
from typing import Any

from adhere.wire._reassemble_base import StreamErrors, event_json
from adhere.wire._sse import SseEvent

__all__ = ["AnthropicReassembler"]

_TEXT_DELTAS = {"text_delta": "text", "thinking_delta": "thinking"}


class AnthropicReassembler(StreamErrors):
    """Rebuilds a ``message`` from ``message_start`` … ``message_stop``.

    Content blocks (text, thinking, redacted thinking, tool use, server tool use)
    are kept in index order; ``input_json_delta`` fragments become the block's
    ``input`` object (``{"_raw": text}`` when they do not parse); ``message_delta``
    sets the stop reason and merges usage.
    """

    def __init__(self) -> None:
        super().__init__()
        self._message: dict[str, Any] | None = None
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._stopped = False

    @property
    def complete(self) -> bool:
        """``message_stop`` arrived."""
        return self._stopped

    def feed(self, event: SseEvent) -> None:
        """Consume one event."""
        data = event_json(event)
        if data is None:
            return
        kind = data.get("type", event.event)
        if kind == "error":
            self._report(data.get("error"))
        elif kind == "message_start":
            message = data.get("message")
            self._message = dict(message) if isinstance(message, dict) else {}
            usage = self._message.get("usage")
            self._message["usage"] = dict(usage) if isinstance(usage, dict) else {}
        elif kind == "message_delta":
            self._delta(data)
        elif kind == "message_stop":
            self._stopped = True
        elif kind in ("content_block_start", "content_block_delta", "content_block_stop"):
            index = data.get("index")
            if isinstance(index, int) and not isinstance(index, bool):
                self._block_event(kind, index, data)

    def _delta(self, data: dict[str, Any]) -> None:
        message = self._started()
        delta = data.get("delta")
        if isinstance(delta, dict):
            for key in ("stop_reason", "stop_sequence"):
                if key in delta:
                    message[key] = delta[key]
        usage = data.get("usage")
        if isinstance(usage, dict):
            message["usage"].update(usage)

    def _block_event(self, kind: str, index: int, data: dict[str, Any]) -> None:
        self._started()
        if kind == "content_block_start":
            block = data.get("content_block")
            self._blocks[index] = dict(block) if isinstance(block, dict) else {}
            return
        block = self._blocks.setdefault(index, {})
        if kind == "content_block_stop":
            self._close_json(index)
            return
        delta = data.get("delta")
        if not isinstance(delta, dict):
            return
        delta_kind = delta.get("type")
        field = _TEXT_DELTAS.get(str(delta_kind))
        if field is not None:
            block[field] = block.get(field, "") + str(delta.get(field, ""))
        elif delta_kind == "input_json_delta":
            self._json.setdefault(index, []).append(str(delta.get("partial_json", "")))
        elif delta_kind == "signature_delta":
            block["signature"] = block.get("signature", "") + str(delta.get("signature", ""))
        elif delta_kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    def _close_json(self, index: int) -> None:
        pieces = self._json.pop(index, None)
        if pieces is None:
            return
        text = "".join(pieces)
        if not text.strip():
            self._blocks[index]["input"] = {}
            return
        try:
            self._blocks[index]["input"] = json.loads(text)
        except ValueError:
            self._blocks[index]["input"] = {"_raw": text}

    def _started(self) -> dict[str, Any]:
        if self._message is None:
            self._message = {"type": "message", "role": "assistant", "usage": {}}
        return self._message

    def result(self) -> dict[str, Any] | None:
        """The ``message`` object so far; ``None`` when no event was understood."""
        if self._message is None:
            return None
        for index in list(self._json):
            self._close_json(index)
        message = dict(self._message)
        message["content"] = [block for _, block in sorted(self._blocks.items())]
        return message
