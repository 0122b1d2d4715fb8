"""Merging the checks proposed for N reference rollouts into one checklist.

Steps, all deterministic and independent of the order in which rollouts are given:

1. **Harmonize** each description (:func:`harmonize_description`): whitespace
   collapsed; a leading "Check if / Check that / Verify whether / Whether …" becomes
   "Check whether"; a description without such a frame gets one ("The assistant
   runs the tests" → "Check whether the assistant runs the tests"); it ends in a
   full stop (kept inside a closing quote: ``…: "Use pytest."``).
2. **Normalize** it for comparison (:func:`normalize`): lower case, contractions
   spelled out, the "Check whether the assistant" frame and stop words dropped, plural
   ``s`` stripped, and every negation word (not, no, never, without, avoid, …)
   replaced by one ``NOT`` token.
3. **Cluster** within each category (:func:`similarity`): two descriptions are the
   same check when their normalized token sets have a Jaccard index of at least
   ``threshold`` (default :data:`DEFAULT_SIMILARITY` = 0.8: with a dozen content
   words, one word added or swapped still merges; two words do not) **and** the same
   negation parity ("uses emoji" never merges with "never uses emoji"). Clustering is
   complete-link: a description joins the most similar cluster only when it is
   similar to every member, so chains of small changes do not snowball. Descriptions
   are taken in a fixed order (most rollouts first, then alphabetical), so the result
   does not depend on the order of the rollouts.
4. **Support** of a cluster = the number of distinct rollouts that proposed any of its
   members. Clusters below ``min_support`` are dropped (and counted).
5. **Represent** each cluster by its description proposed by the most rollouts (ties:
   the shorter, then alphabetical) and its check type by majority (ties: the type
   listed first in :class:`~adhere.spec.CheckKind`).
6. **Order and name**: categories in checklist order
   (:data:`~adhere.judging._checkgen_categories.CATEGORIES`); within one, by support
   (highest first), then description. Ids are the category prefix and a two-digit
   number (``SP-01``, ``UQ-02``; three digits past 99), so the same proposals always
   get the same ids.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from adhere.core import CheckKind
from adhere.judging._checkgen_categories import CATEGORIES, category_named
from adhere.judging._checkgen_reply import ProposedCheck

__all__ = [
    "DEFAULT_SIMILARITY",
    "GeneratedChecklist",
    "MergedCheck",
    "RolloutProposals",
    "harmonize_description",
    "merge_proposals",
    "normalize",
    "number_checks",
    "similarity",
]

DEFAULT_SIMILARITY = 0.8
"""Default Jaccard threshold of normalized token sets above which two checks merge."""

_FRAME = re.compile(
    r"^(?:please\s+)?(?:check|verify|confirm|determine|assess|evaluate|ensure|judge)"
    r"(?:\s+(?:whether|if|that))?\b[\s:,]*",
    re.IGNORECASE,
)
_WHETHER = re.compile(r"^(?:whether|if)\b\s*", re.IGNORECASE)
_QUOTED_END = re.compile(r"[.!?][\"')\]`\u201d\u2019]+$")
_CONTRACTIONS = (
    (re.compile(r"\bcan't\b|\bcannot\b"), "can not"),
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bshan't\b"), "shall not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'s\b"), ""),
)
_SUBJECT = re.compile(r"^(?:the\s+)?(?:assistant|agent|model)\b\s*")
_TOKEN = re.compile(r"[a-z0-9]+(?:[._/-][a-z0-9]+)*")
_NEGATIONS = frozenset(
    {"not", "no", "never", "without", "avoid", "avoids", "avoided", "none", "nor", "neither"}
)
_STOPWORDS = frozenset(
    """a an the and or of to in on at for with by from as into onto about is are be been
    being was were it its this that these those which who whom whose does do did done has
    have had any some such there their them they he she his her i you your we our us
    assistant agent whether check than then so also just very""".split()
)
_NOT = "NOT"
_KIND_ORDER = {kind: n for n, kind in enumerate(CheckKind)}


def harmonize_description(text: str) -> str:
    """``text`` as one sentence starting with "Check whether" and ending in a full stop."""
    text = " ".join(text.split())
    rest = _FRAME.sub("", text, count=1) if _FRAME.match(text) else text
    rest = _WHETHER.sub("", rest, count=1)
    rest = rest.strip()
    end = "" if _QUOTED_END.search(rest) else "."
    if end:
        rest = rest.rstrip(".?!;: ").strip()
    if not rest:
        return "Check whether the instruction was followed."
    if len(rest) > 1 and rest[0].isupper() and rest[1].islower():
        rest = rest[0].lower() + rest[1:]
    return f"Check whether {rest}{end}"


def normalize(description: str) -> tuple[frozenset[str], int]:
    """The comparison form of a description: its token set and its negation parity."""
    text = harmonize_description(description)[len("Check whether ") :].lower()
    text = text.replace("\u2019", "'")
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    text = _SUBJECT.sub("", text)
    tokens: set[str] = set()
    negations = 0
    for raw in _TOKEN.findall(text):
        token = raw.strip("._/-")
        if token in _NEGATIONS:
            negations += 1
            tokens.add(_NOT)
        elif token and token not in _STOPWORDS:
            tokens.add(_stem(token))
    return frozenset(tokens), negations % 2


def _stem(token: str) -> str:
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("ches", "shes", "sses", "xes", "zes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def similarity(a: str, b: str) -> float:
    """How alike two descriptions are: 0 when their negations differ, else a Jaccard index."""
    tokens_a, parity_a = normalize(a)
    tokens_b, parity_b = normalize(b)
    return _similarity(tokens_a, parity_a, tokens_b, parity_b)


def _similarity(a: frozenset[str], pa: int, b: frozenset[str], pb: int) -> float:
    if pa != pb:
        return 0.0
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class RolloutProposals:
    """The checks one model call proposed for one reference rollout.

    Attributes:
        rollout: The rollout's label (``run/model/scaffold/instance/rN``).
        checks: What was proposed, in reply order.
    """

    rollout: str
    checks: tuple[ProposedCheck, ...]


@dataclass(frozen=True)
class MergedCheck:
    """One check of a generated checklist.

    Attributes:
        check_id: ``SP-01``, ``UQ-02``, …
        category: Published category name.
        description: Harmonized description ("Check whether …").
        check_type: Majority check type.
        support: In how many rollouts the check was proposed.
        rollouts: Those rollouts' labels, sorted.
        variants: How many distinct descriptions were merged into it.
        required: Why the check is in the checklist whatever was proposed (the
            Skill.md rule, :mod:`~adhere.judging._checkgen_skill`); ``None`` for a
            proposed check. Required checks are never dropped for low support.
    """

    check_id: str
    category: str
    description: str
    check_type: CheckKind
    support: int
    rollouts: tuple[str, ...]
    variants: int = 1
    required: str | None = None


@dataclass(frozen=True)
class GeneratedChecklist:
    """The merged checklist of one instance.

    Attributes:
        instance: The instance id.
        rollouts: Labels of the reference rollouts it was generated from, sorted.
        checks: The checks, in checklist order.
        threshold: Similarity threshold used for deduplication.
        min_support: Smallest support kept.
        proposed: How many checks were proposed in all.
        dropped: Merged checks left out for support below ``min_support``.
        merge: How the proposals were merged: ``deterministic`` or ``llm``.
        merge_note: What the reader must know about the merge (an LLM merge that
            failed and was replaced by the deterministic one says so here).
        expected_skill: The skill of a Skill instance (its Skill.md checks are
            required, see :mod:`~adhere.judging._checkgen_skill`).
    """

    instance: str
    rollouts: tuple[str, ...]
    checks: tuple[MergedCheck, ...]
    threshold: float = DEFAULT_SIMILARITY
    min_support: int = 1
    proposed: int = 0
    dropped: int = 0
    merge: str = "deterministic"
    merge_note: str | None = None
    expected_skill: str | None = None

    def category_description(self, name: str) -> str:
        """The description written for a category (the Skill.md one names the skill)."""
        text = category_named(name).description
        if name == "Skill.md" and self.expected_skill:
            text += (
                f' Expected skill: "{self.expected_skill}": a skill is invoked, it is that '
                "skill, and its workflow is followed."
            )
        return text

    def by_category(self) -> dict[str, list[MergedCheck]]:
        """The checks grouped by category, in checklist order (empty categories left out)."""
        out: dict[str, list[MergedCheck]] = {}
        for check in self.checks:
            out.setdefault(check.category, []).append(check)
        return out

    def to_data(self) -> dict[str, dict[str, object]]:
        """The checklist in the published shape: ``{category: {description, checks}}``."""
        return {
            name: {
                "description": self.category_description(name),
                "checks": [
                    {
                        "check_id": c.check_id,
                        "description": c.description,
                        "check_type": c.check_type.value,
                    }
                    for c in checks
                ],
            }
            for name, checks in self.by_category().items()
        }


@dataclass
class _Cluster:
    members: list[tuple[frozenset[str], int]] = field(default_factory=list)
    descriptions: Counter[str] = field(default_factory=Counter)
    rollouts_of: dict[str, set[str]] = field(default_factory=dict)
    kinds: Counter[CheckKind] = field(default_factory=Counter)

    def fit(self, tokens: frozenset[str], parity: int) -> float:
        return min(_similarity(tokens, parity, t, p) for t, p in self.members)

    @property
    def rollouts(self) -> set[str]:
        return set().union(*self.rollouts_of.values())


def merge_proposals(
    instance: str,
    proposals: Sequence[RolloutProposals],
    *,
    threshold: float = DEFAULT_SIMILARITY,
    min_support: int = 1,
) -> GeneratedChecklist:
    """Deduplicate and harmonize the proposals of N rollouts into one checklist.

    Args:
        instance: The instance id (recorded).
        proposals: One entry per reference rollout.
        threshold: Jaccard threshold in (0, 1] (see the module docstring).
        min_support: Drop checks proposed in fewer rollouts than this (at least 1).

    Raises:
        ValueError: A bad threshold or support, or two proposals with the same rollout.
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"the similarity threshold must be in (0, 1], got {threshold}")
    if min_support < 1:
        raise ValueError(f"min_support must be at least 1, got {min_support}")
    labels = [p.rollout for p in proposals]
    if len(set(labels)) != len(labels):
        twice = sorted({x for x in labels if labels.count(x) > 1})
        raise ValueError(f"rollouts given twice: {twice}")
    # (category, harmonized description) -> rollouts proposing it, and its check types
    seen: dict[tuple[str, str], set[str]] = {}
    kinds: dict[tuple[str, str], Counter[CheckKind]] = {}
    for rollout in proposals:
        for check in rollout.checks:
            key = (check.category, harmonize_description(check.description))
            seen.setdefault(key, set()).add(rollout.rollout)
            kinds.setdefault(key, Counter())[check.check_type] += 1
    order = {c.name: n for n, c in enumerate(CATEGORIES)}
    clusters: dict[str, list[_Cluster]] = {}
    for key in sorted(seen, key=lambda k: (order[k[0]], -len(seen[k]), k[1].casefold(), k[1])):
        category, description = key
        tokens, parity = normalize(description)
        candidates = clusters.setdefault(category, [])
        best: _Cluster | None = None
        best_fit = 0.0
        for cluster in candidates:
            fit = cluster.fit(tokens, parity)
            if fit >= threshold and fit > best_fit:
                best, best_fit = cluster, fit
        if best is None:
            best = _Cluster()
            candidates.append(best)
        best.members.append((tokens, parity))
        best.descriptions[description] += len(seen[key])
        best.rollouts_of[description] = set(seen[key])
        best.kinds.update(kinds[key])
    merged: list[MergedCheck] = []
    dropped = 0
    for category in clusters:
        for cluster in clusters[category]:
            rollouts = cluster.rollouts
            if len(rollouts) < min_support:
                dropped += 1
                continue
            merged.append(
                MergedCheck(
                    check_id="",
                    category=category,
                    description=_representative(cluster),
                    check_type=_majority(cluster.kinds),
                    support=len(rollouts),
                    rollouts=tuple(sorted(rollouts)),
                    variants=len(cluster.descriptions),
                )
            )
    checks = number_checks(merged)
    return GeneratedChecklist(
        instance=instance,
        rollouts=tuple(sorted(labels)),
        checks=checks,
        threshold=threshold,
        min_support=min_support,
        proposed=sum(len(p.checks) for p in proposals),
        dropped=dropped,
    )


def number_checks(checks: Sequence[MergedCheck]) -> tuple[MergedCheck, ...]:
    """``checks`` in checklist order with their ids (step 6 of the module docstring).

    Categories in checklist order; within one, required checks first (in the order
    given), then by support (highest first) and description. Ids are assigned anew.
    """
    order = {c.name: n for n, c in enumerate(CATEGORIES)}
    by_category: dict[str, list[MergedCheck]] = {}
    for check in checks:
        by_category.setdefault(check.category, []).append(check)
    out: list[MergedCheck] = []
    for category in sorted(by_category, key=order.__getitem__):
        items = by_category[category]
        required = [c for c in items if c.required is not None]
        rest = sorted(
            (c for c in items if c.required is None),
            key=lambda c: (-c.support, c.description.casefold(), c.description),
        )
        prefix = category_named(category).prefix
        width = 2 if len(items) < 100 else len(str(len(items)))
        for number, item in enumerate([*required, *rest], start=1):
            out.append(replace(item, check_id=f"{prefix}-{number:0{width}d}"))
    return tuple(out)


def _representative(cluster: _Cluster) -> str:
    return min(
        cluster.descriptions,
        key=lambda d: (-len(cluster.rollouts_of[d]), len(d), d.casefold(), d),
    )


def _majority(kinds: Counter[CheckKind]) -> CheckKind:
    return min(kinds, key=lambda k: (-kinds[k], _KIND_ORDER[k]))
