"""Removing secrets from recorded data: known key values, key-shaped tokens, key fields.

Three rules, applied to every string inside a JSON-like value (dict keys are left
alone, numbers and booleans too):

* every known secret value (at least :data:`MIN_SECRET_LENGTH` characters) is
  replaced by ``[redacted]`` wherever it occurs, also inside a longer string;
* tokens shaped like common provider keys are replaced too: ``sk-ant-…`` and
  ``sk-…`` (20 or more key characters after ``sk-``, with a digit and an upper-case
  letter among them, so kebab-case words survive) and Google's ``AIza…`` (39
  characters in all);
* the whole string value of a field whose name says it holds a credential
  (``api_key``, ``authorization``, ``password`` …) is replaced.

:func:`redact_query` applies the same rules to a URL query string and blanks the
value of credential parameters such as Gemini's ``key=``.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote_plus, unquote_plus

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "Redactor",
    "redact",
    "redact_query",
    "redact_text",
]

REDACTED = "[redacted]"
"""What a secret is replaced with."""

MIN_SECRET_LENGTH = 6
"""Known values shorter than this are not searched for: they would hit ordinary words."""

_KEY_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
# Each starts with a literal, which lets the regex engine skip ahead quickly; the
# token boundaries are checked by _verdict.
_SHAPES = (
    re.compile(r"sk-[A-Za-z0-9_-]{20,}"),
    re.compile(r"AIza[A-Za-z0-9_-]{35}"),
)
_SECRET_FIELDS = frozenset(
    {
        "access_token",
        "api_key",
        "apikey",
        "authorization",
        "client_secret",
        "password",
        "proxy_authorization",
        "refresh_token",
        "secret",
        "secret_key",
        "x_api_key",
        "x_goog_api_key",
    }
)
_JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')
"""Characters ``json.dumps`` escapes: a secret holding one is not found verbatim in JSON."""
_SECRET_PARAMS = frozenset({"access_token", "api_key", "apikey", "key", "token"})


class Redactor:
    """Redaction with a fixed set of secret values, compiled once.

    Args:
        secrets: Values to remove wherever they appear. Empty values and values
            shorter than :data:`MIN_SECRET_LENGTH` (after stripping whitespace) are
            ignored.
        key_shapes: Also remove tokens shaped like provider API keys.
    """

    def __init__(self, secrets: Iterable[str | None] = (), *, key_shapes: bool = True) -> None:
        values = {value.strip() for value in secrets if value and value.strip()}
        kept = sorted(
            (value for value in values if len(value) >= MIN_SECRET_LENGTH),
            key=lambda value: (-len(value), value),
        )
        self._setup(tuple(kept), key_shapes, fields=True)

    def _setup(self, kept: tuple[str, ...], shapes: bool, *, fields: bool) -> None:
        self._kept = kept
        self._known = re.compile("|".join(map(re.escape, kept))) if kept else None
        self._shapes = shapes
        self._fields = fields

    @property
    def secrets(self) -> tuple[str, ...]:
        """The known secret values it removes, longest first."""
        return self._kept

    def text(self, text: str) -> str:
        """``text`` with every secret and key-shaped token replaced."""
        # Plain substring tests first: far cheaper than the regexes, and most strings
        # hold no secret at all.
        if self._known is not None:
            for value in self._kept:
                if value in text:
                    text = self._known.sub(REDACTED, text)
                    break
        if self._shapes and ("sk-" in text or "AIza" in text):
            for shape in _SHAPES:
                text = shape.sub(_verdict, text)
        return text

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string redacted (see the module doc).

        The value is serialised once to find out which rules can apply at all, so
        a large document without secrets costs a ``json.dumps`` and a ``json.loads``.
        """
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, dict | list | tuple):
            return value
        try:
            blob = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):  # not plain JSON: check every string
            return self._walk(value)
        narrowed = self._narrowed(blob)
        return json.loads(blob) if narrowed is None else narrowed._walk(value)

    def query(self, query: str) -> str:
        """A URL query string with credential parameters blanked and secrets removed."""
        parts = []
        for pair in query.split("&") if query else ():
            name, sep, raw = pair.partition("=")
            if sep and _normal(unquote_plus(name)) in _SECRET_PARAMS:
                parts.append(f"{name}={REDACTED}")
                continue
            value = unquote_plus(raw)
            clean = self.text(value)
            if clean != value:
                parts.append(f"{self.text(name)}={quote_plus(clean, safe='[]')}")
            else:
                parts.append(self.text(pair))
        return "&".join(parts)

    def _narrowed(self, blob: str) -> Redactor | None:
        """A redactor with only the rules that can match in ``blob``; ``None`` if none can."""
        kept = tuple(value for value in self._kept if value in blob or _JSON_ESCAPED.search(value))
        shapes = self._shapes and any(
            _verdict(match) == REDACTED for shape in _SHAPES for match in shape.finditer(blob)
        )
        # Keys appear in json.dumps output as '"name": '.
        folded = blob.lower().replace("-", "_")
        fields = any(f'"{name}": ' in folded for name in _SECRET_FIELDS)
        if not (kept or shapes or fields):
            return None
        narrowed = Redactor.__new__(Redactor)
        narrowed._setup(kept, shapes, fields=fields)
        return narrowed

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            if not self._fields:
                return {key: self._walk(item) for key, item in value.items()}
            return {key: self._field(key, item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self._walk(item) for item in value]
        return value

    def _field(self, key: Any, item: Any) -> Any:
        if isinstance(item, str) and item and isinstance(key, str):
            if _normal(key) in _SECRET_FIELDS:
                return REDACTED
        return self._walk(item)


def _verdict(match: re.Match[str]) -> str:
    """``[redacted]`` for a key-shaped token, the token itself for anything else.

    A token is key-shaped when it stands alone (no key character right before or
    after it) and, for ``sk-``, holds a digit and an upper-case letter: long
    kebab-case words (``task-management-…``) are not keys.
    """
    token, text = match.group(0), match.string
    start, end = match.span()
    if (start > 0 and text[start - 1] in _KEY_CHARS) or (
        end < len(text) and text[end] in _KEY_CHARS
    ):
        return token
    if token.startswith("AIza"):
        return REDACTED
    body = token[3:]
    if any(char.isdigit() for char in body) and any(char.isupper() for char in body):
        return REDACTED
    return token


def _normal(name: str) -> str:
    return name.lower().replace("-", "_")


def redact(obj: Any, secrets: Iterable[str | None] = ()) -> Any:
    """A copy of a JSON-like value with secrets replaced by ``[redacted]``.

    Pure: ``obj`` is not changed. Strings are redacted recursively through dicts and
    lists (tuples become lists); other values are returned as they are.

    Args:
        obj: A value made of dicts, lists, strings, numbers, booleans and ``None``.
        secrets: Known secret values (see :class:`Redactor` for which are used).
    """
    return Redactor(secrets).value(obj)


def redact_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with known secrets and key-shaped tokens replaced by ``[redacted]``."""
    return Redactor(secrets).text(text)


def redact_query(query: str, secrets: Iterable[str | None] = ()) -> str:
    """A URL query string with ``key=``-like values and known secrets redacted."""
    return Redactor(secrets).query(query)
