"""Plain text out of what terminals get: escape sequences and control characters removed."""

from __future__ import annotations

import re

__all__ = ["plain_text"]

_ESCAPES = re.compile(
    r"""
    \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?     # OSC … BEL or ST (titles, hyperlinks)
  | \x9d[^\x07\x1b\x9c]*(?:\x07|\x9c)?     # OSC, 8-bit form
  | \x1b[P^_X][^\x1b]*(?:\x1b\\)?          # DCS, PM, APC, SOS … ST
  | (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]       # CSI: colours, cursor moves, erases
  | \x1b[ -/]*[0-~]                        # any other escape (charset, keypad, reset)
  | \x1b                                   # a lone ESC
    """,
    re.VERBOSE,
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def plain_text(text: str) -> str:
    """``text`` without ANSI escape sequences (CSI, OSC, …) or control characters.

    Line feeds and tabs stay; a carriage return ending a line (CRLF) goes, one inside a
    line (a progress bar redrawing itself) keeps the text after the last one.
    """
    if "\x1b" not in text and not _CONTROLS.search(text) and "\r" not in text:
        return text
    text = _ESCAPES.sub("", text)
    lines = [line.rstrip("\r").rsplit("\r", 1)[-1] for line in text.split("\n")]
    return _CONTROLS.sub("", "\n".join(lines))
