"""The LLM merge prompt, version ``checkgen-merge-v1``: one call merges N proposal lists.

The paper merges the per-rollout checklists of an instance with a model ("deduplicate
and harmonize the multiple per-instance checklists into a single comprehensive
checklist", §3.1.3). This is that call's text. The proposals of all rollouts are
first collapsed to **candidates** (:func:`merge_candidates`): the same category and
the same harmonized description are one candidate, which remembers the rollouts that
proposed it. Each candidate gets a key (``P1``, ``P2``, … in a fixed order:
categories in checklist order, then most rollouts first, then description) and is
shown on one line::

    ===== BEGIN PROPOSED CHECKS =====
    P1 · SP · compliance · 3/4 rollouts · Check whether the assistant never uses emoji.
    P2 · SP · compliance · 1/4 rollouts · Check whether no emoji appear in the answers.
    ===== END PROPOSED CHECKS =====

The model answers with the merged checklist, each check naming the candidates it
merges (``"merges": ["P1", "P2"]``); the reply is parsed strictly by
:func:`~adhere.judging._checkgen_merge_reply.parse_merge_reply`, which also requires
that every candidate is kept in some check, so a merge cannot drop a check silently.
Support is computed from the keys, not taken from the model.

Changing any text here changes what models answer: bump :data:`MERGE_PROMPT_VERSION`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adhere.core import CheckKind
from adhere.judging._checkgen_categories import CATEGORIES
from adhere.judging._checkgen_merge import RolloutProposals, harmonize_description
from adhere.judging._prompt_transcript import guard_markers

__all__ = [
    "BEGIN_PROPOSED",
    "END_PROPOSED",
    "MERGE_PROMPT_VERSION",
    "MERGE_SYSTEM",
    "Candidate",
    "merge_candidates",
    "read_merge_candidates",
    "render_merge_user",
]

MERGE_PROMPT_VERSION = "checkgen-merge-v1"
BEGIN_PROPOSED = "===== BEGIN PROPOSED CHECKS ====="
END_PROPOSED = "===== END PROPOSED CHECKS ====="

_CATEGORY_NAMES = ", ".join(c.name for c in CATEGORIES)
_KINDS = ", ".join(f'"{k.value}"' for k in CheckKind)

MERGE_SYSTEM = f"""\
You merge checklists that judges later use to decide whether an AI coding agent \
followed its instructions.

Several checklists were written for the same task, one per recorded agent session. \
Each proposed check has a key (P1, P2, …), a category (the instruction source), a \
check type, in how many sessions it was proposed, and its description. Deduplicate \
and harmonize them into one comprehensive checklist:
- Checks that test the same requirement become one check. Checks that test different \
requirements stay separate, even when they are worded alike; a check and its \
negation are different checks.
- Keep every requirement: each proposed key must appear in the "merges" list of at \
least one check of your answer. Do not drop a check because few sessions proposed it.
- Each check stays atomic and binary: one requirement a judge can answer yes or no \
from a session record. A proposed check that tests two requirements may be split into \
two checks that both list its key.
- Descriptions are one sentence starting with "Check whether" about the assistant's \
behaviour. Keep conditions in the text ("Check whether, if the assistant …").
- "category" is exactly one of: {_CATEGORY_NAMES}. "check_type" is one of: {_KINDS}.

Reply with STRICT JSON and nothing else: no prose before or after it, no comments.
{{"checks": [{{"category": "<category>", "description": "Check whether …", \
"check_type": "<check type>", "merges": ["P1", "P2"]}}]}}
"""

_INTRO = (
    "Merge the proposed checks below into one checklist for instance {instance} "
    '({rollouts} recorded sessions). Every key must be listed in some check\'s "merges".'
)
_LINE = re.compile(
    r"^(?P<key>P\d+) · (?P<category>[^·\n]+?) · (?P<kind>[a-z]+) · "
    r"(?P<support>\d+)/(?P<total>\d+) rollouts · (?P<description>.+)$"
)


@dataclass(frozen=True)
class Candidate:
    """A distinct proposed check (same category and harmonized description).

    Attributes:
        key: ``P1``, ``P2``, … (its name in the prompt and in the reply).
        category: Published category name.
        description: Harmonized description.
        check_type: The type most rollouts gave it (ties: the first check type).
        rollouts: Labels of the rollouts that proposed it, sorted.
    """

    key: str
    category: str
    description: str
    check_type: CheckKind
    rollouts: tuple[str, ...]


def merge_candidates(proposals: Sequence[RolloutProposals]) -> list[Candidate]:
    """The distinct proposed checks of all rollouts, keyed in a fixed order."""
    seen: dict[tuple[str, str], set[str]] = {}
    kinds: dict[tuple[str, str], dict[CheckKind, int]] = {}
    for rollout in proposals:
        for check in rollout.checks:
            key = (check.category, harmonize_description(check.description))
            seen.setdefault(key, set()).add(rollout.rollout)
            counts = kinds.setdefault(key, {})
            counts[check.check_type] = counts.get(check.check_type, 0) + 1
    order = {c.name: n for n, c in enumerate(CATEGORIES)}
    kind_order = {kind: n for n, kind in enumerate(CheckKind)}
    ranked = sorted(seen, key=lambda k: (order[k[0]], -len(seen[k]), k[1].casefold(), k[1]))
    out = []
    for number, (category, description) in enumerate(ranked, start=1):
        counts = kinds[(category, description)]
        kind = min(counts, key=lambda k: (-counts[k], kind_order[k]))
        rollouts = tuple(sorted(seen[(category, description)]))
        out.append(Candidate(f"P{number}", category, description, kind, rollouts))
    return out


def render_merge_user(
    instance: str, candidates: Sequence[Candidate], rollouts: int, *, note: str | None = None
) -> str:
    """The user text of the merge call (``note``: what was wrong with the last reply)."""
    lines = [
        f"{c.key} · {c.category} · {c.check_type.value} · {len(c.rollouts)}/{rollouts} "
        f"rollouts · {guard_markers(c.description)}"
        for c in candidates
    ]
    parts = [
        _INTRO.format(instance=instance, rollouts=rollouts),
        f"{BEGIN_PROPOSED}\n" + "\n".join(lines) + f"\n{END_PROPOSED}",
    ]
    if note:
        parts.append(f"Note on your previous reply:\n{note}")
    parts.append(
        'Reply now with one JSON object {"checks": [...]} holding the merged checklist, '
        "and nothing else."
    )
    return "\n\n".join(parts)


def read_merge_candidates(user_text: str) -> list[tuple[str, str, str, str]]:
    """``(key, category, check_type, description)`` of each line of a rendered merge prompt.

    Raises:
        ValueError: The text holds no proposed-checks section, or a line of it is not a
            candidate line.
    """
    start = user_text.find(f"{BEGIN_PROPOSED}\n")
    stop = user_text.find(f"\n{END_PROPOSED}", start)
    if start < 0 or stop < 0:
        raise ValueError(f"no {BEGIN_PROPOSED!r} … {END_PROPOSED!r} section in the prompt")
    out = []
    for line in user_text[start + len(BEGIN_PROPOSED) + 1 : stop].splitlines():
        found = _LINE.match(line)
        if found is None:
            raise ValueError(f"not a proposed-check line: {line[:120]!r}")
        out.append((found["key"], found["category"], found["kind"], found["description"]))
    return out
