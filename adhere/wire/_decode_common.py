"""Helpers shared by the call decoders: flattening content and decoding arguments."""

from __future__ import annotations

import json
from typing import Any


def flatten_text(value: Any) -> str:
    """Flatten content (a string, a list of parts, a part) into text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (flatten_text(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("text", "input_text", "output_text"):
            if isinstance(value.get(key), str):
                return str(value[key])
        for key in ("content", "output", "parts"):
            if key in value:
                return flatten_text(value[key])
        kind = value.get("type")
        if kind:
            return f"[{kind}]"
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def decode_args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return {"_raw": raw}
        return value if isinstance(value, dict) else {"_raw": raw}
    return {} if raw is None else {"_raw": json.dumps(raw, ensure_ascii=False)}
