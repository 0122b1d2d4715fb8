"""OpenAI Responses API: ``response.*`` events back into a ``response`` object."""

from __future__ import annotations

from typing import Any

from adhere.wire._reassemble_base import StreamErrors, error_text, event_json
from adhere.wire._sse import SseEvent

__all__ = ["ResponsesReassembler"]

_FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_SNAPSHOTS = frozenset({"response.created", "response.in_progress", "response.queued"}) | _FINAL
# Delta events that append to a string field of the output item itself.
_ITEM_DELTAS = {
    "response.function_call_arguments.delta": "arguments",
    "response.custom_tool_call_input.delta": "input",
}
# Delta events that append to a part of a list of the item: (list, part type, field).
_PART_DELTAS = {
    "response.output_text.delta": ("content", "content_index", "output_text", "text"),
    "response.refusal.delta": ("content", "content_index", "refusal", "refusal"),
    "response.reasoning_text.delta": ("content", "content_index", "reasoning_text", "text"),
    "response.reasoning_summary_text.delta": ("summary", "summary_index", "summary_text", "text"),
}
_PART_ADDED = {
    "response.content_part.added": ("content", "content_index"),
    "response.reasoning_summary_part.added": ("summary", "summary_index"),
}


class ResponsesReassembler(StreamErrors):
    """Rebuilds a ``response`` object from ``response.created`` … ``response.completed``.

    Output items (messages, function calls, custom tool calls, reasoning) are kept by
    ``output_index``: started by ``response.output_item.added``, grown by the text,
    argument, input and reasoning deltas, and replaced by the finished item of
    ``response.output_item.done``. The final snapshot (``response.completed``,
    ``.incomplete`` or ``.failed``) gives the response's fields and usage; its
    ``output`` is used when it has one, else the items rebuilt here.
    """

    def __init__(self) -> None:
        super().__init__()
        self._snapshot: dict[str, Any] | None = None
        self._items: dict[int, dict[str, Any]] = {}
        self._ids: dict[str, int] = {}
        self._final = False

    @property
    def complete(self) -> bool:
        """A final snapshot (completed, incomplete or failed) arrived."""
        return self._final

    def feed(self, event: SseEvent) -> None:
        """Consume one event."""
        data = event_json(event)
        if data is None:
            return
        kind = str(data.get("type") or event.event)
        if kind == "error":
            details = {key: data.get(key) for key in ("code", "message")}
            self._report(details)
        elif kind in _SNAPSHOTS:
            self._take_snapshot(kind, data.get("response"))
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item = data.get("item")
            if isinstance(item, dict):
                self._put_item(data.get("output_index"), dict(item))
        elif kind in _ITEM_DELTAS:
            item = self._item(data)
            if item is not None:
                field = _ITEM_DELTAS[kind]
                item[field] = str(item.get(field) or "") + str(data.get("delta", ""))
        elif kind in _PART_DELTAS:
            self._part_delta(kind, data)
        elif kind in _PART_ADDED:
            self._part_added(kind, data)

    def _take_snapshot(self, kind: str, response: Any) -> None:
        if isinstance(response, dict):
            self._snapshot = dict(response)
        if kind in _FINAL:
            self._final = True
        if kind == "response.failed" and self._error is None:
            failure = self._snapshot.get("error") if self._snapshot else None
            self._error = f"response failed: {error_text(failure or 'no error given')}"

    def _put_item(self, index: Any, item: dict[str, Any]) -> None:
        if not isinstance(index, int) or isinstance(index, bool):
            index = self._ids.get(str(item.get("id")), len(self._items))
        self._items[index] = item
        if isinstance(item.get("id"), str):
            self._ids[item["id"]] = index

    def _item(self, data: dict[str, Any]) -> dict[str, Any] | None:
        index = data.get("output_index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = self._ids.get(str(data.get("item_id")))
        return self._items.get(index) if index is not None else None

    def _part(self, data: dict[str, Any], where: str, slot: str, kind: str) -> dict[str, Any]:
        item = self._item(data)
        if item is None:
            item = {"type": "message" if where == "content" else "reasoning"}
            self._put_item(data.get("output_index"), item)
        parts = item.get(where)
        if not isinstance(parts, list):
            parts = item[where] = []
        index = data.get(slot, len(parts))
        position = index if isinstance(index, int) and 0 <= index < 1024 else len(parts)
        while len(parts) <= position:
            parts.append({"type": kind})
        part = parts[position]
        if not isinstance(part, dict):
            part = parts[position] = {"type": kind}
        return part

    def _part_added(self, kind: str, data: dict[str, Any]) -> None:
        where, slot = _PART_ADDED[kind]
        added = data.get("part")
        part = self._part(data, where, slot, "output_text")
        if isinstance(added, dict):
            part.clear()
            part.update(added)

    def _part_delta(self, kind: str, data: dict[str, Any]) -> None:
        where, slot, part_type, field = _PART_DELTAS[kind]
        part = self._part(data, where, slot, part_type)
        part[field] = str(part.get(field) or "") + str(data.get("delta", ""))

    def result(self) -> dict[str, Any] | None:
        """The ``response`` object so far; ``None`` when no event was understood."""
        if self._snapshot is None and not self._items:
            return None
        response = dict(self._snapshot or {"object": "response"})
        if not response.get("output"):
            response["output"] = [item for _, item in sorted(self._items.items())]
        return response
