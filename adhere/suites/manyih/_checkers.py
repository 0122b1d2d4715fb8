"""The 41 style checkers by style id, and checking several styles over one parse.

Every checker is pure Python over tokens and the syntax tree (no subprocess, no
execution of the code). Code that is empty or does not parse fails every style, with
the reason; otherwise a style that has nothing to judge holds (``singleton_yoda`` on
code without singleton comparisons).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from adhere.suites.manyih._check_defs import (
    check_docstrings,
    check_returns,
    check_singleton,
    check_types,
)
from adhere.suites.manyih._check_layout import (
    check_blank,
    check_indent,
    check_license,
    check_line_length,
)
from adhere.suites.manyih._check_lexical import check_op_spacing, check_quotes
from adhere.suites.manyih._check_names import check_length, check_naming
from adhere.suites.manyih._code import Code, Outcome
from adhere.suites.manyih._styles import GROUPS, STYLES

__all__ = ["CHECKERS", "Checker", "check_style", "check_styles"]

Checker = Callable[[Code, str], Outcome]
"""``checker(code, style_id) -> Outcome``."""

_BY_GROUP: dict[str, Checker] = {
    "indent": check_indent,
    "quotes": check_quotes,
    "naming_convention": check_naming,
    "operator_spacing": check_op_spacing,
    "type_hints": check_types,
    "variable_name_length": check_length,
    "license": check_license,
    "function_doc": check_docstrings,
    "internal_blank_lines": check_blank,
    "return_style": check_returns,
    "singleton": check_singleton,
    "line_length": check_line_length,
}

CHECKERS: dict[str, Checker] = {
    sid: _BY_GROUP[group] for group, ids in GROUPS.items() for sid in ids
}
"""Checker of every style id (41)."""


def check_style(code: str | Code, style_id: str) -> Outcome:
    """Whether ``code`` satisfies one style.

    Raises:
        KeyError: unknown style id.
    """
    if style_id not in STYLES:
        raise KeyError(f"unknown ManyIH style {style_id!r}")
    parsed = code if isinstance(code, Code) else Code(code)
    if parsed.error:
        return Outcome.bad(parsed.error)
    return CHECKERS[style_id](parsed, style_id)


def check_styles(code: str | Code, style_ids: Iterable[str]) -> dict[str, Outcome]:
    """Several styles over one parse of ``code``."""
    parsed = code if isinstance(code, Code) else Code(code)
    return {sid: check_style(parsed, sid) for sid in style_ids}
