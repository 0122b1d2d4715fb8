"""Normalizing one extracted answer value to a category's canonical label.

The public scorer compares strings exactly, so ``695.0`` against ``695``, ``"1"``
against ``1`` and ``2(强相关)`` against ``2（强相关）`` all count as wrong. Here every
answer is normalized to a canonical label (``1``, ``2``, ``695``, ``A``) and the steps
that changed it are recorded by name, so a report can say how many answers an exact
comparison would have mis-scored. Steps (:data:`STEPS`):

``whitespace/quotes``
    Surrounding whitespace, quotes (ASCII, Chinese, corner brackets), Markdown
    emphasis or backticks, or a trailing ``。``/``!`` were removed.
``full-width characters``
    Full-width digits or letters (``１``, ``Ａ``) were read as ASCII.
``string→int``
    A price answer came as a string (``"1"``) where the published answers are integers.
``number→string``
    A number came as a JSON number where the published answer is a string.
``numeric format``
    A number was written differently: ``695.0``, ``695.00``, ``+695``, ``1,125``.
``unit``
    A currency unit or sign was removed (``元``, ``¥``, ``￥``, ``RMB``).
``half-width parentheses``
    A relevance label used ``( )`` instead of the published ``（ ）``.
``label digit only`` / ``label name only``
    A relevance or price label was given by its number or its name alone.
``case``
    An option letter was lower case.
``option decoration``
    An option letter came with a prefix, brackets or punctuation (``选项A``, ``(A)``, ``A.``).
``option text``
    An option letter was followed by (part of) the option's text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from adhere.suites.guidebench._task import PRICE_LABELS, RELEVANCE_LABELS, AnswerKind

STEPS = (
    "whitespace/quotes",
    "full-width characters",
    "string→int",
    "number→string",
    "numeric format",
    "unit",
    "half-width parentheses",
    "label digit only",
    "label name only",
    "case",
    "option decoration",
    "option text",
)
"""Names of the normalization steps, in the order they are reported."""

_QUOTES = "\"'`“”‘’「」『』*"
_TRAILING = "。!！"
_UNITS = re.compile(r"(?:人民币|RMB|rmb|CNY|元|块钱|块|[¥￥])")
_NUMBER = re.compile(r"^[+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")
_RELEVANCE = re.compile(r"^([012])\s*(?:[(（]\s*(强相关|弱相关|不相关)\s*[)）])?$")
_OPTION = re.compile(
    r"^(?:选项|option|答案)?\s*[(\[（【]?\s*([A-Za-z])\s*[)\]）】]?\s*([.．。:：、,，]?)\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
_PRICE_NAMES = {"同品": "1", "是同品": "1", "非同品": "0", "不同品": "0", "不是同品": "0"}


@dataclass(frozen=True)
class Normalized:
    """A canonical label and the steps that produced it, or why there is none."""

    value: str | None
    steps: tuple[str, ...] = ()
    error: str = ""


def canonical_number(value: Decimal) -> str:
    """A decimal written without exponent, trailing zeros or a trailing point."""
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def normalize(kind: AnswerKind, raw: object, options: tuple[str, ...] = ()) -> Normalized:
    """Normalize an extracted answer (a JSON value or text) for a category kind.

    ``options`` are the task's option letters (for ``option`` tasks).
    """
    if isinstance(raw, bool) or raw is None or isinstance(raw, list | dict):
        return Normalized(None, error=f"answer is {type(raw).__name__}, not a label")
    if kind == "numeric":
        return _numeric(raw)
    if kind == "binary":
        return _binary(raw)
    if kind == "relevance":
        return _relevance(raw)
    return _option(raw, options)


def _clean(text: str, steps: list[str]) -> str:
    """Strip whitespace, quotes and a trailing full stop; read full-width characters."""
    stripped = text.strip()
    while stripped and (stripped[0] in _QUOTES or stripped[-1] in _QUOTES + _TRAILING):
        stripped = stripped.strip(_QUOTES).rstrip(_TRAILING).strip()
    if stripped != text:
        steps.append("whitespace/quotes")
    narrowed = "".join(_narrow(c) for c in stripped)
    if narrowed != stripped:
        steps.append("full-width characters")
    return narrowed


def _narrow(char: str) -> str:
    """A full-width ASCII letter or digit as ASCII; everything else unchanged."""
    if "０" <= char <= "９" or "Ａ" <= char <= "Ｚ" or "ａ" <= char <= "ｚ":
        return unicodedata.normalize("NFKC", char)
    return char


def _numeric(raw: object) -> Normalized:
    steps: list[str] = []
    if isinstance(raw, int | float):
        steps.append("number→string")
        if isinstance(raw, float) and not math.isfinite(raw):  # JSON's NaN, Infinity
            return Normalized(None, tuple(steps), f"not a number: {raw!r}")
        text = repr(raw) if isinstance(raw, float) else str(raw)
    else:
        text = _clean(str(raw), steps)
        without_unit = _UNITS.sub("", text).strip()
        if without_unit != text:
            steps.append("unit")
            text = without_unit
    if not _NUMBER.match(text) and not (isinstance(raw, float) and text):
        return Normalized(None, tuple(steps), f"not a number: {str(raw)[:40]!r}")
    try:
        number = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return Normalized(None, tuple(steps), f"not a number: {str(raw)[:40]!r}")
    value = canonical_number(number)
    if value != text:
        steps.append("numeric format")
    return Normalized(value, tuple(steps))


def _binary(raw: object) -> Normalized:
    steps: list[str] = []
    if isinstance(raw, float):
        if raw in (0.0, 1.0):
            return Normalized(str(int(raw)), ("numeric format",))
        return Normalized(None, error=f"{raw!r} is not 0 or 1")
    if isinstance(raw, int):
        if raw in (0, 1):
            return Normalized(str(raw))
        return Normalized(None, error=f"{raw!r} is not 0 or 1")
    text = _clean(str(raw), steps)
    if text in PRICE_LABELS:
        return Normalized(text, (*steps, "string→int"))
    if text in ("0.0", "1.0"):
        return Normalized(text[0], (*steps, "string→int", "numeric format"))
    if text in _PRICE_NAMES:
        return Normalized(_PRICE_NAMES[text], (*steps, "label name only"))
    return Normalized(None, tuple(steps), f"not 0 or 1: {str(raw)[:40]!r}")


def _relevance(raw: object) -> Normalized:
    steps: list[str] = []
    if isinstance(raw, int):
        if str(raw) in RELEVANCE_LABELS:
            return Normalized(str(raw), ("number→string", "label digit only"))
        return Normalized(None, error=f"{raw!r} is not a relevance grade")
    if isinstance(raw, float):
        return Normalized(None, error=f"{raw!r} is not a relevance grade")
    text = _clean(str(raw), steps)
    names = {name: grade for grade, name in RELEVANCE_LABELS.items()}
    if text in names:
        return Normalized(names[text], (*steps, "label name only"))
    match = _RELEVANCE.match(text)
    if match is None:
        return Normalized(None, tuple(steps), f"not a relevance label: {str(raw)[:40]!r}")
    grade, name = match.group(1), match.group(2)
    if name is None:
        return Normalized(grade, (*steps, "label digit only"))
    if RELEVANCE_LABELS[grade] != name:
        return Normalized(None, tuple(steps), f"grade {grade} does not match the name {name}")
    if "(" in text or ")" in text:
        steps.append("half-width parentheses")
    if text.replace("(", "（").replace(")", "）") != f"{grade}（{name}）":
        steps.append("whitespace/quotes")
    return Normalized(grade, tuple(dict.fromkeys(steps)))


def _option(raw: object, options: tuple[str, ...]) -> Normalized:
    steps: list[str] = []
    if not isinstance(raw, str):
        return Normalized(None, error=f"{raw!r} is not an option letter")
    text = _clean(raw, steps)
    match = _OPTION.match(text)
    if match is None:
        return Normalized(None, tuple(steps), f"not an option letter: {raw[:40]!r}")
    letter, punctuation, rest = match.group(1), match.group(2), match.group(3)
    if rest and not punctuation:
        return Normalized(None, tuple(steps), f"not an option letter: {raw[:40]!r}")
    if letter.islower():
        steps.append("case")
    letter = letter.upper()
    if letter not in options:
        return Normalized(None, tuple(steps), f"{letter} is not one of the options {options}")
    head = text[: len(text) - len(rest)].strip()
    if rest:
        steps.append("option text")
    if head not in (letter, letter.lower()) and not (rest and head.upper() == letter + "."):
        steps.append("option decoration")
    return Normalized(letter, tuple(dict.fromkeys(steps)))
