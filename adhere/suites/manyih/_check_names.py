"""Naming checkers: case convention, consonant start and name length.

They judge the variables of :mod:`adhere.suites.manyih._names` — names the code
binds (parameters included), read from the syntax tree, so keyword-argument names
of calls, attributes, and words inside strings or comments never count.

- ``naming_snake``: lower-case letters, digits and underscores, starting with a
  letter or an underscore (``first_even``, ``x``, ``_tmp``);
- ``naming_camel``: a lower-case letter, then letters and digits, no underscore
  (``firstEven``, ``x``);
- ``naming_consonant_start``: the first character is a consonant letter (y counts),
  either case; a leading underscore does not;
- ``var_min3`` / ``var_min5``: at least 3 / 5 characters; ``var_max2``: at most 2;
  ``var_single``: exactly 1.
"""

from __future__ import annotations

import re

from adhere.suites.manyih._code import Code, Outcome

__all__ = ["CONSONANTS", "check_length", "check_naming", "name_ok"]

CONSONANTS = frozenset("bcdfghjklmnpqrstvwxyzBCDFGHJKLMNPQRSTVWXYZ")
_SNAKE = re.compile(r"[a-z_][a-z0-9_]*\Z")
_CAMEL = re.compile(r"[a-z][a-zA-Z0-9]*\Z")
_LENGTH = {"var_min3": (3, None), "var_min5": (5, None), "var_max2": (1, 2), "var_single": (1, 1)}


def name_ok(style_id: str, name: str) -> bool:
    """Whether one variable name satisfies a naming or length style."""
    if style_id == "naming_snake":
        return bool(_SNAKE.match(name)) and any(c.isalpha() for c in name)
    if style_id == "naming_camel":
        return bool(_CAMEL.match(name))
    if style_id == "naming_consonant_start":
        return name[:1] in CONSONANTS
    low, high = _LENGTH[style_id]
    return len(name) >= low and (high is None or len(name) <= high)


def _check(code: Code, style_id: str, what: str) -> Outcome:
    for name, (row, _col) in code.variables.items():
        if not name_ok(style_id, name):
            return Outcome.bad(f"line {row}: variable {name!r} {what}")
    return Outcome.ok()


def check_naming(code: Code, style_id: str) -> Outcome:
    """naming_snake / naming_camel / naming_consonant_start."""
    what = {
        "naming_snake": "is not snake_case",
        "naming_camel": "is not camelCase",
        "naming_consonant_start": "does not start with a consonant",
    }[style_id]
    return _check(code, style_id, what)


def check_length(code: Code, style_id: str) -> Outcome:
    """var_min3 / var_min5 / var_max2 / var_single."""
    what = {
        "var_min3": "is shorter than 3 characters",
        "var_min5": "is shorter than 5 characters",
        "var_max2": "is longer than 2 characters",
        "var_single": "is longer than 1 character",
    }[style_id]
    return _check(code, style_id, what)
