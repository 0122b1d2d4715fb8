"""Gemini ``streamGenerateContent``: chunks back into one ``GenerateContentResponse``."""

from __future__ import annotations

from typing import Any

from adhere.wire._reassemble_base import StreamErrors, event_json
from adhere.wire._sse import SseEvent

__all__ = ["GeminiReassembler"]

_LAST_WINS = ("finishReason", "finishMessage", "safetyRatings", "citationMetadata", "avgLogprobs")
_HEAD_KEYS = ("modelVersion", "responseId", "createTime")


class _Candidate:
    """One candidate being rebuilt: its parts, role and last-reported fields."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.role = "model"
        self.parts: list[dict[str, Any]] = []
        self.fields: dict[str, Any] = {}

    def feed(self, raw: dict[str, Any]) -> None:
        content = raw.get("content")
        if isinstance(content, dict):
            if isinstance(content.get("role"), str):
                self.role = content["role"]
            parts = content.get("parts")
            for part in parts if isinstance(parts, list) else []:
                if isinstance(part, dict):
                    self._add(part)
        for key in _LAST_WINS:
            if key in raw:
                self.fields[key] = raw[key]

    def _add(self, part: dict[str, Any]) -> None:
        last = self.parts[-1] if self.parts else None
        if (
            last is not None
            and isinstance(part.get("text"), str)
            and isinstance(last.get("text"), str)
            and bool(part.get("thought")) == bool(last.get("thought"))
            and set(part) <= {"text", "thought", "thoughtSignature"}
        ):
            last["text"] += part["text"]
            if "thoughtSignature" in part:
                last["thoughtSignature"] = part["thoughtSignature"]
            return
        self.parts.append(dict(part))

    def document(self) -> dict[str, Any]:
        document: dict[str, Any] = {"content": {"role": self.role, "parts": self.parts}}
        document.update(self.fields)
        document["index"] = self.index
        return document


class GeminiReassembler(StreamErrors):
    """Rebuilds a ``GenerateContentResponse`` from its streamed chunks.

    Each chunk is a whole ``GenerateContentResponse`` holding the next parts.
    Consecutive text parts of a candidate (with the same ``thought`` flag) are
    joined into one part; function calls and other parts are kept as they came.
    The last finish reason, safety ratings and ``usageMetadata`` win. Also takes the
    elements of a JSON-array stream (``streamGenerateContent`` without ``alt=sse``)
    through :meth:`feed_chunk`.
    """

    def __init__(self) -> None:
        super().__init__()
        self._head: dict[str, Any] = {}
        self._candidates: dict[int, _Candidate] = {}
        self._usage: Any = None
        self._feedback: Any = None
        self._seen = False

    @property
    def complete(self) -> bool:
        """Some candidate has a finish reason (Gemini sends no separate end event)."""
        return any("finishReason" in c.fields for c in self._candidates.values())

    def feed(self, event: SseEvent) -> None:
        """Consume one ``data:`` chunk."""
        chunk = event_json(event)
        if chunk is not None:
            self.feed_chunk(chunk)

    def feed_chunk(self, chunk: dict[str, Any]) -> None:
        """Consume one ``GenerateContentResponse`` chunk."""
        if chunk.get("error") is not None:
            self._report(chunk["error"])
            return
        self._seen = True
        for key in _HEAD_KEYS:
            if key in chunk:
                self._head[key] = chunk[key]
        if chunk.get("usageMetadata") is not None:
            self._usage = chunk["usageMetadata"]
        if chunk.get("promptFeedback") is not None:
            self._feedback = chunk["promptFeedback"]
        candidates = chunk.get("candidates")
        for position, raw in enumerate(candidates if isinstance(candidates, list) else []):
            if not isinstance(raw, dict):
                continue
            index = raw.get("index", position)
            slot = index if isinstance(index, int) and not isinstance(index, bool) else position
            self._candidates.setdefault(slot, _Candidate(slot)).feed(raw)

    def result(self) -> dict[str, Any] | None:
        """The ``GenerateContentResponse`` so far; ``None`` when no chunk was understood."""
        if not self._seen:
            return None
        document: dict[str, Any] = {
            "candidates": [c.document() for _, c in sorted(self._candidates.items())]
        }
        if self._feedback is not None:
            document["promptFeedback"] = self._feedback
        if self._usage is not None:
            document["usageMetadata"] = self._usage
        document.update(self._head)
        return document
