"""Strict parsing of a checklist-generation reply.

Accepted shapes are the judge's (:mod:`adhere.judging._judge_reply`): the reply is one
JSON object, or holds exactly one fenced ```` ```json ```` block whose content is that
object. The object must be ``{"checks": [...]}`` with at least one entry; each entry
``{"category", "description", "check_type"}`` (other keys are ignored, as the judge's
parser ignores them):

* ``category`` — a category in any usual spelling
  (:func:`~adhere.judging._checkgen_categories.canonical_category`); stored under its
  published name.
* ``description`` — a non-empty string (its wording is harmonized later, see
  :func:`~adhere.judging._checkgen_merge.harmonize_description`).
* ``check_type`` — one of the six check types, any case.

Anything else is a problem, and a reply with any problem is not used at all (the
caller asks again, saying what was wrong): a half-valid list cannot be told apart
from a list the model would have written differently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from adhere.core import CheckKind
from adhere.judging._checkgen_categories import canonical_category
from adhere.judging._judge_reply import _extract as extract_payload

__all__ = ["ParsedProposals", "ProposedCheck", "check_entry", "checks_list", "parse_checkgen_reply"]

_KINDS = {kind.value: kind for kind in CheckKind}
_FIELDS = frozenset({"category", "description", "check_type"})
_MAX_LISTED = 12


@dataclass(frozen=True)
class ProposedCheck:
    """One check a model proposed for one rollout.

    Attributes:
        category: Published category name.
        description: The description as written (not yet harmonized).
        check_type: The check type.
    """

    category: str
    description: str
    check_type: CheckKind


@dataclass(frozen=True)
class ParsedProposals:
    """The checks of a usable reply, or what was wrong with it."""

    checks: list[ProposedCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the reply can be used."""
        return not self.problems

    def summary(self) -> str:
        """The problems on one line (for error messages and history)."""
        shown = self.problems[:_MAX_LISTED]
        more = len(self.problems) - len(shown)
        return "; ".join(shown) + (f"; … and {more} more" if more > 0 else "")


def parse_checkgen_reply(text: str) -> ParsedProposals:
    """Parse a generation reply strictly (see the module docstring)."""
    entries, why = checks_list(text)
    if entries is None:
        return ParsedProposals(problems=[why or "unusable reply"])
    checks: list[ProposedCheck] = []
    problems: list[str] = []
    for position, entry in enumerate(entries):
        check, problem = check_entry(entry)
        if problem is not None:
            problems.append(f"entry {position}: {problem}")
        elif check is not None:
            checks.append(check)
    return ParsedProposals(checks=[] if problems else checks, problems=problems)


def checks_list(text: str) -> tuple[list[Any] | None, str | None]:
    """The non-empty ``checks`` list of a reply's JSON object, or what is wrong with it."""
    payload, problem = extract_payload(text)
    if problem is not None:
        return None, problem.message
    try:
        data: Any = json.loads(payload)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(payload.rstrip()) - 1 or "Unterminated" in exc.msg:
            return None, "the JSON stops before it is complete (cut off?)"
        if exc.msg == "Extra data":
            return None, "there is text after the JSON object"
        return None, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    if not isinstance(data, dict) or not isinstance(data.get("checks"), list):
        return None, 'the JSON is not an object of the form {"checks": [...]}'
    entries: list[Any] = data["checks"]
    if not entries:
        return None, "the checks list is empty"
    return entries, None


def check_entry(entry: Any) -> tuple[ProposedCheck | None, str | None]:
    """One ``{category, description, check_type}`` entry, or what is wrong with it."""
    if not isinstance(entry, dict):
        return None, "not an object"
    missing = sorted(_FIELDS - set(entry))
    if missing:
        return None, f"missing {', '.join(repr(m) for m in missing)}"
    category, description, kind = entry["category"], entry["description"], entry["check_type"]
    if not isinstance(category, str):
        return None, "category is not a string"
    try:
        name = canonical_category(category)
    except ValueError as exc:
        return None, str(exc)
    if not isinstance(description, str) or not description.strip():
        return None, "description is not a non-empty string"
    if not isinstance(kind, str) or kind.strip().lower() not in _KINDS:
        known = ", ".join(_KINDS)
        return None, f"check_type {kind!r} is not one of {known}"
    return ProposedCheck(name, description.strip(), _KINDS[kind.strip().lower()]), None
