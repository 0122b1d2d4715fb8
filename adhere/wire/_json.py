"""Typed access to provider JSON, with errors that name the offending field.

Shared by the clients (reading replies) and the server codecs (reading requests).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "StreamFailure",
    "WireFormatError",
    "as_bool",
    "as_int",
    "as_list",
    "as_object",
    "as_str",
    "decode_arguments",
    "join_text",
    "optional",
    "parse_json_object",
    "read_text_parts",
    "require",
]


class WireFormatError(ValueError):
    """A JSON document does not have the shape an API prescribes.

    Attributes:
        field: Path of the offending field, e.g. ``messages[2].content``; empty for
            the document itself.
    """

    def __init__(self, message: str, field: str = "") -> None:
        self.field = field
        self.detail = message
        super().__init__(f"{field}: {message}" if field else message)


class StreamFailure(Exception):
    """A stream reported an error event or broke off; the call may be retried."""


def parse_json_object(raw: bytes | str, what: str = "body") -> dict[str, Any]:
    """Decode a JSON object, raising :class:`WireFormatError` for anything else."""
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WireFormatError(f"{what} is not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise WireFormatError(f"{what} must be a JSON object, got {_kind(value)}")
    return value


def optional(obj: dict[str, Any], key: str) -> Any:
    """``obj[key]``, treating an explicit ``null`` like a missing key (``None``)."""
    return obj.get(key)


def require(obj: dict[str, Any], key: str, where: str) -> Any:
    """``obj[key]``, or a ``WireFormatError`` saying the field is required."""
    if obj.get(key) is None:
        raise WireFormatError("field required", f"{where}.{key}" if where else key)
    return obj[key]


def as_object(value: Any, field: str) -> dict[str, Any]:
    """``value`` as a JSON object."""
    if not isinstance(value, dict):
        raise WireFormatError(f"expected an object, got {_kind(value)}", field)
    return value


def as_list(value: Any, field: str) -> list[Any]:
    """``value`` as a JSON array."""
    if not isinstance(value, list):
        raise WireFormatError(f"expected an array, got {_kind(value)}", field)
    return value


def as_str(value: Any, field: str) -> str:
    """``value`` as a JSON string."""
    if not isinstance(value, str):
        raise WireFormatError(f"expected a string, got {_kind(value)}", field)
    return value


def as_int(value: Any, field: str) -> int:
    """``value`` as a JSON integer (booleans are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireFormatError(f"expected an integer, got {_kind(value)}", field)
    return value


def as_bool(value: Any, field: str) -> bool:
    """``value`` as a JSON boolean."""
    if not isinstance(value, bool):
        raise WireFormatError(f"expected a boolean, got {_kind(value)}", field)
    return value


def decode_arguments(raw: Any, field: str) -> dict[str, Any]:
    """Tool-call arguments sent as a JSON string (OpenAI) decoded to an object.

    An empty string means no arguments.
    """
    text = as_str(raw, field)
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        raise WireFormatError("tool call arguments are not valid JSON", field) from None
    if not isinstance(value, dict):
        raise WireFormatError(
            f"tool call arguments must be a JSON object, got {_kind(value)}", field
        )
    return value


def join_text(parts: list[str]) -> str:
    """How several text parts or blocks of one message become one string."""
    return "\n\n".join(part for part in parts if part)


def read_text_parts(value: Any, field: str, *, kinds: tuple[str, ...], unsupported: str) -> str:
    """Text that is a string, ``null`` or a list of text parts (joined by blank lines).

    Args:
        value: The JSON value.
        field: Its path, for errors.
        kinds: The part ``type`` values that hold text (under ``text``).
        unsupported: The error for any other part type; ``{kind}`` is replaced by it.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    texts = []
    for index, raw in enumerate(as_list(value, field)):
        part = as_object(raw, f"{field}[{index}]")
        kind = part.get("type")
        if kind not in kinds:
            raise WireFormatError(unsupported.format(kind=repr(kind)), f"{field}[{index}].type")
        texts.append(as_str(part.get("text"), f"{field}[{index}].text"))
    return join_text(texts)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
