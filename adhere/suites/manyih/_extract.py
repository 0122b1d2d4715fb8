"""Taking the code out of a model's reply.

The first fenced block labelled ``python`` (or ``py``/``python3``); else the first
fenced block of any label; else, when the reply has no fence at all, the whole reply.
An unterminated fence runs to the end of the reply. Reasoning a model wraps in
``<think>…</think>`` is dropped first.
"""

from __future__ import annotations

import re

__all__ = ["extract_code"]

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                    re.DOTALL | re.MULTILINE)  # fmt: skip
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


def extract_code(reply: str) -> str:
    """The code of a reply (see the module docstring); may be empty."""
    text = _THINK.sub("", reply)
    blocks = [(m.group(2).lower(), m.group(3)) for m in _FENCE.finditer(text)]
    for label, body in blocks:
        if label in ("python", "py", "python3"):
            return body.rstrip("\n") + "\n" if body.strip() else ""
    if blocks:
        body = blocks[0][1]
        return body.rstrip("\n") + "\n" if body.strip() else ""
    return text.strip("\n") + "\n" if text.strip() else ""
