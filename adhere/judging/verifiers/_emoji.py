"""``no_emoji``: the assistant's replies contain no emoji.

What counts as an emoji (a whole sequence is reported once):

- any character of the pictograph blocks: Miscellaneous Symbols and Pictographs
  (U+1F300–1F5FF, including skin-tone modifiers), Emoticons (U+1F600–1F64F),
  Transport and Map (U+1F680–1F6FF), Supplemental Symbols and Pictographs
  (U+1F90C–1F9FF), Symbols and Pictographs Extended-A (U+1FA70–1FAFF), the coloured
  circles and squares (U+1F7E0–1F7F0);
- regional-indicator letters (flags are pairs of them) and tag sequences (subdivision
  flags);
- symbols whose default presentation is emoji even without a selector, such as ✅ ❌
  ✨ ⭐ ⚡ ☕ ⌛ ❗ ➕ 🀄 🆎 🈯 (the Emoji_Presentation set outside the blocks above);
- any character followed by VARIATION SELECTOR-16 (U+FE0F), which asks for emoji
  presentation: ``©️ ™️ ❤️ ⚠️ ✔️``;
- keycaps: ``0-9 # *`` followed by U+20E3 (with or without VS16).

Not emoji: ordinary and CJK punctuation, letters of any script, arrows (→ ⇒), box
drawing, math symbols, ★ ✓ ✗, text-presentation symbols such as © ® ™ ✔ ❤ ⚠ when no
VS16 follows them, and anything followed by VS15 (text presentation asked for). ZWJ
sequences (👩‍💻) and modifier sequences (👍🏽) count as one emoji.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._replies import replies

__all__ = ["find_emoji", "is_emoji_char"]

_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x1F300, 0x1F5FF),
    (0x1F600, 0x1F64F),
    (0x1F680, 0x1F6FF),
    (0x1F7E0, 0x1F7F0),
    (0x1F90C, 0x1F9FF),
    (0x1FA70, 0x1FAFF),
    (0x1F1E6, 0x1F1FF),  # regional indicators
)
_PRESENTATION: frozenset[int] = frozenset(
    cp
    for lo, hi in (
        (0x231A, 0x231B),
        (0x23E9, 0x23EC),
        (0x23F0, 0x23F0),
        (0x23F3, 0x23F3),
        (0x25FD, 0x25FE),
        (0x2614, 0x2615),
        (0x2648, 0x2653),
        (0x267F, 0x267F),
        (0x2693, 0x2693),
        (0x26A1, 0x26A1),
        (0x26AA, 0x26AB),
        (0x26BD, 0x26BE),
        (0x26C4, 0x26C5),
        (0x26CE, 0x26CE),
        (0x26D4, 0x26D4),
        (0x26EA, 0x26EA),
        (0x26F2, 0x26F3),
        (0x26F5, 0x26F5),
        (0x26FA, 0x26FA),
        (0x26FD, 0x26FD),
        (0x2705, 0x2705),
        (0x270A, 0x270B),
        (0x2728, 0x2728),
        (0x274C, 0x274C),
        (0x274E, 0x274E),
        (0x2753, 0x2755),
        (0x2757, 0x2757),
        (0x2795, 0x2797),
        (0x27B0, 0x27B0),
        (0x27BF, 0x27BF),
        (0x2B1B, 0x2B1C),
        (0x2B50, 0x2B50),
        (0x2B55, 0x2B55),
        (0x1F004, 0x1F004),
        (0x1F0CF, 0x1F0CF),
        (0x1F18E, 0x1F18E),
        (0x1F191, 0x1F19A),
        (0x1F201, 0x1F201),
        (0x1F21A, 0x1F21A),
        (0x1F22F, 0x1F22F),
        (0x1F232, 0x1F236),
        (0x1F238, 0x1F23A),
        (0x1F250, 0x1F251),
    )
    for cp in range(lo, hi + 1)
)
_VS15 = "\ufe0e"
_VS16 = "\ufe0f"
_ZWJ = "\u200d"
_KEYCAP = "\u20e3"
_KEYCAP_BASES = frozenset("0123456789#*")


def is_emoji_char(char: str) -> bool:
    """Whether ``char`` is an emoji on its own (without a variation selector)."""
    cp = ord(char)
    return cp in _PRESENTATION or any(lo <= cp <= hi for lo, hi in _BLOCKS)


def _is_tag(char: str) -> bool:
    return 0xE0020 <= ord(char) <= 0xE007F


def _starts_emoji(text: str, i: int) -> bool:
    char = text[i]
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if nxt == _VS15:
        return False  # text presentation asked for explicitly
    if is_emoji_char(char):
        return True
    if char in _KEYCAP_BASES:
        after = text[i + 2] if nxt == _VS16 and i + 2 < len(text) else nxt
        return after == _KEYCAP
    return nxt == _VS16 and not char.isalnum() and not char.isspace() and char != _ZWJ


def find_emoji(text: str) -> list[tuple[int, str]]:
    """Every emoji in ``text`` as ``(offset, sequence)``, sequences kept whole."""
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(text):
        if not _starts_emoji(text, i):
            i += 1
            continue
        start = i
        i += 1
        while i < len(text):
            char = text[i]
            if char in (_VS16, _KEYCAP) or _is_tag(char):
                i += 1
            elif 0x1F3FB <= ord(char) <= 0x1F3FF:
                i += 1
            elif char == _ZWJ and i + 1 < len(text) and _starts_emoji(text, i + 1):
                i += 2
            elif (
                0x1F1E6 <= ord(text[start]) <= 0x1F1FF
                and i - start == 1
                and 0x1F1E6 <= ord(char) <= 0x1F1FF
            ):
                i += 1  # the second letter of a flag
            else:
                break
        found.append((start, text[start:i]))
    return found


def _emoji_counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, seq in find_emoji(text):
        counts[seq] = counts.get(seq, 0) + 1
    return counts


def _new_in_files(initial: Mapping[str, str], changed: Iterable[tuple[str, str]]) -> list[str]:
    """``path: emoji`` for emoji a changed file has more of than before the trial."""
    out: list[str] = []
    for path, text in changed:
        before = _emoji_counts(initial.get(path, ""))
        for seq, count in _emoji_counts(text).items():
            if count > before.get(seq, 0):
                out.append(f"{path}: {seq}")
    return out


class NoEmojiParams(VerifierParams):
    """Parameters of ``no_emoji``.

    Attributes:
        scope: ``all`` replies (default) or only the ``final`` one.
        include_reasoning: Also look at the assistant's visible reasoning.
        files: Also look at the text files the trial created or changed; only emoji
            that were not already there before the trial count.
    """

    scope: Literal["all", "final"] = "all"
    include_reasoning: bool = False
    files: bool = False


@verifier("no_emoji", params=NoEmojiParams)
def no_emoji(
    ctx: VerifyContext, *, scope: Literal["all", "final"], include_reasoning: bool, files: bool
) -> Outcome:
    """No emoji in the assistant's replies (and, optionally, in the files it wrote)."""
    chosen = replies(ctx.trajectory, scope, include_reasoning=include_reasoning)
    changed = sorted(ctx.trajectory.files.items()) if files else []
    if not chosen and not changed:
        return Outcome("n/a", "the assistant wrote no reply in scope")
    for reply in chosen:
        hits = find_emoji(reply.text)
        if hits:
            shown = ", ".join(dict.fromkeys(seq for _, seq in hits))
            return Outcome(
                "fail",
                f"message {reply.index} (assistant reply) contains emoji: {shown}",
                evidence=reply.index,
                details={"emoji": [seq for _, seq in hits]},
            )
    in_files = _new_in_files(ctx.initial_files, changed)
    if in_files:
        more = f" and {len(in_files) - 5} more" if len(in_files) > 5 else ""
        return Outcome(
            "fail",
            f"emoji added to files: {'; '.join(in_files[:5])}{more}",
            details={"emoji": in_files},
        )
    what = f"{len(chosen)} repl{'y' if len(chosen) == 1 else 'ies'}"
    if files:
        what += f" and {len(changed)} changed file{'' if len(changed) == 1 else 's'}"
    return Outcome("pass", f"no emoji in {what}")


class UsesEmojiParams(VerifierParams):
    """Parameters of ``uses_emoji``.

    Attributes:
        scope: ``final`` reply (default) or ``all`` replies (then every reply must
            hold an emoji).
    """

    scope: Literal["all", "final"] = "final"


@verifier("uses_emoji", params=UsesEmojiParams)
def uses_emoji(ctx: VerifyContext, *, scope: Literal["all", "final"]) -> Outcome:
    """The replies in scope do hold emoji (for "end every answer with an emoji")."""
    chosen = replies(ctx.trajectory, scope)
    if not chosen:
        return Outcome("n/a", "the assistant wrote no reply in scope")
    for reply in chosen:
        if not find_emoji(reply.text):
            return Outcome(
                "fail",
                f"message {reply.index} (assistant reply) holds no emoji",
                evidence=reply.index,
            )
    found = [seq for reply in chosen for _, seq in find_emoji(reply.text)]
    what = f"{len(chosen)} repl{'y' if len(chosen) == 1 else 'ies'}"
    return Outcome(
        "pass", f"emoji in {what}: {', '.join(dict.fromkeys(found))}", details={"emoji": found}
    )
