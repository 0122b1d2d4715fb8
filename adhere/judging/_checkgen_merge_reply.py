"""Strict parsing of an LLM merge reply, and the checklist it gives.

The reply's shape is a generation reply's (:mod:`~adhere.judging._checkgen_reply`:
one JSON object, bare or in one fenced block, ``{"checks": [...]}`` with entries
``{"category", "description", "check_type"}``) and each entry must also have
``"merges"``: a non-empty list of the candidate keys it merges (``"P1"``, …,
:mod:`~adhere.judging._checkgen_merge_prompt`). Problems name the entry and the
field::

    entry 2: field 'merges': unknown key 'P99' (the prompt has P1 … P14)
    candidates P4, P9 are in no entry's 'merges' (every proposed check must be kept)

The last one is what keeps an LLM merge from dropping checks silently: a reply that
leaves a candidate out is not used. A reply with any problem is not used at all.

:func:`merged_checklist` turns a usable reply into a
:class:`~adhere.judging._checkgen_merge.GeneratedChecklist`: each check's support is
the number of distinct rollouts behind the candidates it merges (computed here, not
taken from the model), its description harmonized, checks below ``min_support``
dropped and counted, ids assigned as the deterministic merge assigns them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from adhere.core import CheckKind
from adhere.judging._checkgen_merge import (
    DEFAULT_SIMILARITY,
    GeneratedChecklist,
    MergedCheck,
    harmonize_description,
    number_checks,
)
from adhere.judging._checkgen_merge_prompt import Candidate
from adhere.judging._checkgen_reply import check_entry, checks_list

__all__ = ["MergeDraft", "ParsedMerge", "merged_checklist", "parse_merge_reply"]

_MAX_LISTED = 12


@dataclass(frozen=True)
class MergeDraft:
    """One check of a merge reply: what the model wrote and which candidates it merges."""

    category: str
    description: str
    check_type: CheckKind
    merges: tuple[str, ...]


@dataclass(frozen=True)
class ParsedMerge:
    """The checks of a usable merge reply, or what was wrong with it."""

    checks: list[MergeDraft] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the reply can be used."""
        return not self.problems

    def summary(self) -> str:
        """The problems on one line."""
        shown = self.problems[:_MAX_LISTED]
        more = len(self.problems) - len(shown)
        return "; ".join(shown) + (f"; … and {more} more" if more > 0 else "")


def _span(keys: Sequence[str]) -> str:
    return f"{keys[0]} … {keys[-1]}" if len(keys) > 1 else keys[0]


def _merges(
    entry: dict[str, Any], known: set[str], span: str
) -> tuple[tuple[str, ...], str | None]:
    if "merges" not in entry:
        return (), "missing field 'merges' (the keys of the proposed checks it merges)"
    value = entry["merges"]
    if not isinstance(value, list) or not value:
        return (), "field 'merges' is not a non-empty list of keys"
    keys: list[str] = []
    for item in value:
        if not isinstance(item, str):
            return (), f"field 'merges': {item!r} is not a key string"
        key = item.strip()
        if key not in known:
            return (), f"field 'merges': unknown key {item!r} (the prompt has {span})"
        if key not in keys:
            keys.append(key)
    return tuple(keys), None


def parse_merge_reply(text: str, candidates: Sequence[Candidate]) -> ParsedMerge:
    """Parse a merge reply strictly against the candidates of its prompt."""
    entries, why = checks_list(text)
    if entries is None:
        return ParsedMerge(problems=[why or "unusable reply"])
    order = [c.key for c in candidates]
    known = set(order)
    span = _span(order) if order else "no keys"
    drafts: list[MergeDraft] = []
    problems: list[str] = []
    for position, entry in enumerate(entries):
        check, problem = check_entry(entry)
        if problem is None and check is not None:
            keys, problem = _merges(entry, known, span)
            if problem is None:
                drafts.append(MergeDraft(check.category, check.description, check.check_type, keys))
        if problem is not None:
            problems.append(f"entry {position}: {problem}")
    covered = {key for draft in drafts for key in draft.merges}
    missing = [key for key in order if key not in covered]
    if missing and not problems:
        listed = ", ".join(missing[:_MAX_LISTED]) + (" …" if len(missing) > _MAX_LISTED else "")
        problems.append(
            f"candidates {listed} are in no entry's 'merges' (every proposed check must be "
            "kept in some check)"
        )
    return ParsedMerge(checks=[] if problems else drafts, problems=problems)


def merged_checklist(
    instance: str,
    candidates: Sequence[Candidate],
    drafts: Sequence[MergeDraft],
    *,
    rollouts: Sequence[str],
    proposed: int,
    min_support: int = 1,
    threshold: float = DEFAULT_SIMILARITY,
) -> GeneratedChecklist:
    """The checklist of a usable merge reply (see the module docstring).

    Checks of the same category and harmonized description are one check (their
    candidates pooled).
    """
    by_key = {c.key: c for c in candidates}
    pooled: dict[tuple[str, str], tuple[CheckKind, set[str]]] = {}
    for draft in drafts:
        key = (draft.category, harmonize_description(draft.description))
        kind, keys = pooled.setdefault(key, (draft.check_type, set()))
        keys.update(draft.merges)
    checks: list[MergedCheck] = []
    dropped = 0
    for (category, description), (kind, keys) in pooled.items():
        labels = sorted({label for k in keys for label in by_key[k].rollouts})
        if len(labels) < min_support:
            dropped += 1
            continue
        checks.append(
            MergedCheck(
                check_id="",
                category=category,
                description=description,
                check_type=kind,
                support=len(labels),
                rollouts=tuple(labels),
                variants=len(keys),
            )
        )
    return GeneratedChecklist(
        instance=instance,
        rollouts=tuple(sorted(rollouts)),
        checks=number_checks(checks),
        threshold=threshold,
        min_support=min_support,
        proposed=proposed,
        dropped=dropped,
        merge="llm",
    )
