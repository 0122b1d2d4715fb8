"""Privilege interfaces, the meta prompt, and resolving which instructions win.

Two ways to tag an instruction with its privilege:

- ordinal: ``[[Privilege k]]…[[/Privilege]]``; the smaller ``k`` is the stronger;
- scalar: ``[[z=v]]…[[/z]]``; the larger ``v`` is the stronger.

In both, of two conflicting instructions with equal privilege the one that appears
later in the prompt wins. The ordinal levels are dense ranks of the scalar values
(the largest value is ``Privilege 1``; equal values share a rank), so the two
renderings of one sample always have the same winners.

Resolution: order the instructions strongest first (privilege, then later position
first among equals) and keep each one that conflicts with none already kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

__all__ = [
    "INTERFACES",
    "META_PROMPTS",
    "Interface",
    "Tag",
    "Tagged",
    "levels",
    "ordinal_ranks",
    "parse_tags",
    "render_prompt",
    "resolve",
    "strongest_first",
    "tag",
    "winners_from_prompt",
]

Interface = Literal["ordinal", "scalar"]
INTERFACES: tuple[Interface, ...] = ("ordinal", "scalar")

_RULES = {
    "ordinal": (
        "Every style instruction is wrapped in a privilege tag, "
        "[[Privilege N]]instruction[[/Privilege]]. A smaller N means more authority: "
        "Privilege 1 overrides Privilege 2, which overrides Privilege 3, and so on."
    ),
    "scalar": (
        "Every style instruction is wrapped in a privilege tag, [[z=V]]instruction[[/z]]. "
        "A larger V means more authority: z=90 overrides z=40."
    ),
}

META_PROMPTS: dict[Interface, str] = {
    interface: (
        "You are a careful Python programmer. Solve the programming task you are given and "
        "follow its style instructions. " + _RULES[interface] + " Follow every instruction "
        "you can. Where instructions contradict each other, obey the one with more "
        "authority; where contradicting instructions carry the same privilege, obey the one "
        "that comes later in the list. Keep the function name exactly as the task states it "
        "(you may rename its parameters). Give the complete solution in one ```python code "
        "block."
    )
    for interface in INTERFACES
}
"""The system (meta) prompt of each interface, in this project's words."""


@dataclass(frozen=True)
class Tagged:
    """An instruction as placed in a prompt: key, scalar privilege, position, text."""

    key: int
    value: int
    position: int
    text: str


def ordinal_ranks(values: Iterable[int]) -> dict[int, int]:
    """Dense ranks: the largest scalar value gets 1, the next distinct value 2, and so on."""
    return {v: rank for rank, v in enumerate(sorted(set(values), reverse=True), start=1)}


def levels(items: Sequence[Tagged], interface: Interface) -> dict[int, int]:
    """The level shown for each item's key in an interface."""
    if interface == "scalar":
        return {item.key: item.value for item in items}
    ranks = ordinal_ranks(item.value for item in items)
    return {item.key: ranks[item.value] for item in items}


def tag(text: str, level: int, interface: Interface) -> str:
    """One instruction wrapped in its privilege tag."""
    if interface == "ordinal":
        return f"[[Privilege {level}]]{text}[[/Privilege]]"
    return f"[[z={level}]]{text}[[/z]]"


def render_prompt(task: str, items: Sequence[Tagged], interface: Interface) -> str:
    """The user prompt: the task, then the tagged instructions in position order."""
    shown = levels(items, interface)
    lines = ["Task:", task.strip(), "", "Style instructions:"]
    for item in sorted(items, key=lambda i: i.position):
        lines.append(f"- {tag(item.text, shown[item.key], interface)}")
    lines += ["", "Answer with the whole solution in a single ```python code block."]
    return "\n".join(lines)


@dataclass(frozen=True)
class Tag:
    """A privilege tag found in a prompt."""

    interface: Interface
    level: int
    text: str
    position: int


_TAG = re.compile(
    r"\[\[Privilege\s+(?P<rank>\d{1,9})\]\](?P<otext>.*?)\[\[/Privilege\]\]"
    r"|\[\[z=(?P<value>-?\d{1,9})\]\](?P<stext>.*?)\[\[/z\]\]",
    re.DOTALL,
)


def parse_tags(prompt: str) -> list[Tag]:
    """Every privilege tag of a prompt, in order of appearance."""
    out = []
    for position, match in enumerate(_TAG.finditer(prompt)):
        if match.group("rank") is not None:
            out.append(Tag("ordinal", int(match.group("rank")), match.group("otext"), position))
        else:
            out.append(Tag("scalar", int(match.group("value")), match.group("stext"), position))
    return out


K = TypeVar("K")


def strongest_first(entries: Iterable[tuple[K, int, int]], interface: Interface) -> list[K]:
    """Keys of ``(key, level, position)`` entries from the most to the least authority.

    Among equal levels the later position counts as stronger (ties go to the later).
    """
    sign = 1 if interface == "ordinal" else -1
    ordered = sorted(entries, key=lambda e: (sign * e[1], -e[2]))
    return [key for key, _, _ in ordered]


def resolve(ordered: Sequence[K], conflict: Callable[[K, K], bool]) -> list[K]:
    """Winners: walking strongest first, keep each key that conflicts with none kept."""
    kept: list[K] = []
    for key in ordered:
        if not any(conflict(key, other) for other in kept):
            kept.append(key)
    return kept


def winners_from_prompt(
    prompt: str, style_of: Callable[[str], str], conflict: Callable[[str, str], bool]
) -> list[str]:
    """The winning styles read straight off a rendered prompt (either interface).

    ``style_of`` maps an instruction's text to its style id; ``conflict`` says whether
    two style ids conflict. Raises ValueError when the prompt mixes interfaces.
    """
    tags = parse_tags(prompt)
    kinds = {t.interface for t in tags}
    if len(kinds) != 1:
        raise ValueError(f"expected tags of one interface, found {sorted(kinds) or 'none'}")
    interface = tags[0].interface
    ordered = strongest_first(((t.position, t.level, t.position) for t in tags), interface)
    styles = {t.position: style_of(t.text) for t in tags}
    kept = resolve(ordered, lambda a, b: conflict(styles[a], styles[b]))
    return [styles[k] for k in kept]
