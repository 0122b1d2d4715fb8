"""OpenAI Chat Completions: ``chat.completion.chunk`` events back into a ``chat.completion``."""

from __future__ import annotations

from typing import Any

from adhere.wire._reassemble_base import StreamErrors, event_json
from adhere.wire._sse import SseEvent

__all__ = ["ChatReassembler"]

_HEAD_KEYS = ("id", "created", "model", "system_fingerprint", "service_tier")
_TEXT_KEYS = ("content", "refusal", "reasoning_content", "reasoning")


class _Choice:
    """One choice being rebuilt: text fields, tool calls by index, finish reason."""

    def __init__(self) -> None:
        self.role = "assistant"
        self.texts: dict[str, list[str]] = {}
        self.calls: dict[int, dict[str, Any]] = {}
        self.function_call: dict[str, str] | None = None
        self.finish: Any = None

    def feed(self, delta: dict[str, Any]) -> None:
        if isinstance(delta.get("role"), str):
            self.role = delta["role"]
        for key in _TEXT_KEYS:
            if isinstance(delta.get(key), str):
                self.texts.setdefault(key, []).append(delta[key])
        calls = delta.get("tool_calls")
        for position, fragment in enumerate(calls if isinstance(calls, list) else []):
            if isinstance(fragment, dict):
                self._call(position, fragment)
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            slot = self.function_call or {"name": "", "arguments": ""}
            slot["name"] = str(legacy.get("name") or slot["name"])
            slot["arguments"] += str(legacy.get("arguments") or "")
            self.function_call = slot

    def _call(self, position: int, fragment: dict[str, Any]) -> None:
        index = fragment.get("index", position)
        slot = self.calls.setdefault(
            index if isinstance(index, int) else position,
            {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
        )
        if fragment.get("id"):
            slot["id"] = fragment["id"]
        if fragment.get("type"):
            slot["type"] = fragment["type"]
        function = fragment.get("function")
        if isinstance(function, dict):
            if function.get("name"):
                slot["function"]["name"] = str(function["name"])
            if function.get("arguments"):
                slot["function"]["arguments"] += str(function["arguments"])

    def message(self) -> dict[str, Any]:
        content = "".join(self.texts.get("content", []))
        message: dict[str, Any] = {
            "role": self.role,
            "content": content if content or not (self.calls or self.function_call) else None,
        }
        for key in _TEXT_KEYS[1:]:
            if key in self.texts:
                message[key] = "".join(self.texts[key])
        if self.calls:
            message["tool_calls"] = [slot for _, slot in sorted(self.calls.items())]
        if self.function_call is not None:
            message["function_call"] = self.function_call
        return message


class ChatReassembler(StreamErrors):
    """Rebuilds a ``chat.completion`` from its chunks, every choice by its index.

    Text deltas (``content``, ``refusal``, and the ``reasoning_content`` /
    ``reasoning`` fields some servers add) are joined; tool calls are gathered by
    their ``index`` with their argument fragments concatenated; the usage chunk is
    kept. The stream is complete at ``data: [DONE]`` or, for servers that skip it,
    once a finish reason arrived.
    """

    def __init__(self) -> None:
        super().__init__()
        self._head: dict[str, Any] = {}
        self._choices: dict[int, _Choice] = {}
        self._usage: Any = None
        self._done = False

    @property
    def complete(self) -> bool:
        """``[DONE]`` arrived, or every choice seen has a finish reason."""
        finished = bool(self._choices) and all(
            choice.finish is not None for choice in self._choices.values()
        )
        return self._done or finished

    def feed(self, event: SseEvent) -> None:
        """Consume one chunk."""
        if event.data.strip() == "[DONE]":
            self._done = True
            return
        chunk = event_json(event)
        if chunk is None:
            return
        if chunk.get("error") is not None:
            self._report(chunk["error"])
            return
        for key in _HEAD_KEYS:
            if chunk.get(key) is not None and key not in self._head:
                self._head[key] = chunk[key]
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        choices = chunk.get("choices")
        for position, raw in enumerate(choices if isinstance(choices, list) else []):
            if not isinstance(raw, dict):
                continue
            index = raw.get("index", position)
            slot = index if isinstance(index, int) else position
            choice = self._choices.setdefault(slot, _Choice())
            if isinstance(raw.get("delta"), dict):
                choice.feed(raw["delta"])
            if raw.get("finish_reason") is not None:
                choice.finish = raw["finish_reason"]

    def result(self) -> dict[str, Any] | None:
        """The ``chat.completion`` object so far; ``None`` when no chunk was understood."""
        if not self._head and not self._choices and self._usage is None:
            return None
        document: dict[str, Any] = {
            "id": self._head.get("id", ""),
            "object": "chat.completion",
            "created": self._head.get("created", 0),
            "model": self._head.get("model", ""),
        }
        for key in _HEAD_KEYS[3:]:
            if key in self._head:
                document[key] = self._head[key]
        document["choices"] = [
            {"index": index, "message": choice.message(), "finish_reason": choice.finish}
            for index, choice in sorted(self._choices.items())
        ]
        if self._usage is not None:
            document["usage"] = self._usage
        return document
