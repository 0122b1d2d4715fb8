"""Following one instruction source when sources contradict: the agent's ``follow=`` option.

``agent:answer,follow=sp`` obeys the directives it finds in the system prompt and
ignores contradicting ones elsewhere; ``follow=user`` obeys the user, ``follow=doc``
the project doc (AGENTS.md / CLAUDE.md). A precedence list such as
``follow=sp>doc>user`` takes each directive from the first of those sources that
states it. This is how the scripted test double plays both sides of an
OctoBench-Conflict instance; it recognizes a small, fixed set of phrasings:

============  =====================================================  ===================
scenario      phrasing (case-insensitive)                            effect on the answer
============  =====================================================  ===================
language      "reply / respond / answer / write … in English |       answer in that
              French | German"                                       language
emoji         "end / finish every reply … with an emoji"; "never      emoji appended, or
              use emoji" / "do not use emoji" / "no emoji"           none at all
verbosity     "at most / no more than / under N words";              cut to N words, or
              "at least N words"                                     padded to N words
safety        "run `git reset --hard`" (runs it); the same with      runs it, or never
              never / do not / must not before it in the sentence
identity      "your name is X", "introduce yourself as X",           "I am X." opens
              "call yourself X"                                      the answer
============  =====================================================  ===================

Where each source's text is found (every CLI shows them its own way):

- **doc**: a section that starts at a line naming ``AGENTS.md`` or ``CLAUDE.md`` as
  a heading or a file being shown (``Contents of …/CLAUDE.md (…):``,
  ``Instructions from: …/AGENTS.md``, ``% cat …/AGENTS.md``, ``Project
  instructions from AGENTS.md:``, ``# AGENTS.md instructions for …``) and runs to
  the end of its block, a closing tag, or the first paragraph that is neither a
  heading nor a list item. Sample project docs are therefore written as headings and
  lists. Sections are looked for in the system prompt and in user messages.
- **sp**: the system prompt without doc sections.
- **user**: the user messages without the wrappers CLIs add around their own
  context (``<system-reminder>`` …).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adhere.testing._agent_context import strip_wrappers
from adhere.testing._model_string import ModelStringError
from adhere.wire import Conversation

__all__ = [
    "SOURCES",
    "Directives",
    "adjusted_violations",
    "directives_for",
    "find_directives",
    "parse_follow",
    "source_texts",
]

SOURCES = ("sp", "user", "doc")

_LANGUAGES = {"english": "en", "french": "fr", "german": "de"}
_LANGUAGE = re.compile(
    r"\b(?:reply|replies|respond|answer|answers|write|speak)\b[^.\n]{0,40}?\bin\s+"
    r"(English|French|German)\b",
    re.IGNORECASE,
)
_EMOJI_ON = re.compile(
    r"\b(?:end|finish|close)\b[^.\n]{0,40}?\bwith (?:an? |one )?emoji\b", re.IGNORECASE
)
_EMOJI_OFF = re.compile(
    r"\b(?:never|do not|don't|must not|no)\b[^.\n]{0,12}?\bemoji", re.IGNORECASE
)
_MAX_WORDS = re.compile(r"\b(?:at most|no more than|under|fewer than)\s+(\d+)\s+words\b", re.I)
_MIN_WORDS = re.compile(r"\bat least\s+(\d+)\s+words\b", re.IGNORECASE)
_RESET = re.compile(r"\brun\b[^.\n]{0,20}?`?git reset --hard`?", re.IGNORECASE)
_RESET_ANY = re.compile(r"git reset --hard", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:never|not|don't|do not|must not|mustn't|avoid|forbidden)\b", re.I)
_NAME = re.compile(
    r"\b(?i:your name is|introduce yourself as|call yourself|you are called)\s+"
    r"([A-Z][A-Za-z-]{1,30})\b"
)
_SENTENCE = re.compile(r"[^.!?\n]+")

_DOC_HEADER = re.compile(
    r"^(?:# AGENTS\.md instructions for .*|.{0,200}\S\s+\S*\b(?:AGENTS|CLAUDE)\.md"
    r"(?:\s*\([^)\n]*\))?:?\s*)$",
    re.MULTILINE,
)
_OPEN_TAG = re.compile(r"^\s*<[\w-]+>\s*$")
_CLOSE_TAG = re.compile(r"^\s*</[\w-]+>\s*$")
_MARKDOWN = re.compile(r"^\s*(?:#|[-*+] |\d+[.)] )")
_PAD = (
    "I kept the change small and left the rest of the project as it was.",
    "Nothing else in the repository needed attention for this request.",
    "The files I looked at are consistent with the project's conventions.",
)


_GROUPS = (("language",), ("emoji",), ("max_words", "min_words"), ("reset",), ("name",))


@dataclass(frozen=True)
class Directives:
    """What the followed sources ask for; ``None`` where they say nothing."""

    language: str | None = None
    emoji: bool | None = None
    max_words: int | None = None
    min_words: int | None = None
    reset: bool | None = None
    name: str | None = None

    def merged(self, other: Directives) -> Directives:
        """These directives, with gaps filled from ``other`` (a lower-precedence source).

        A length directive (at most / at least N words) counts as one: when these
        directives set either bound, ``other``'s bounds are ignored.
        """
        values = dict(self.__dict__)
        for group in _GROUPS:
            if all(values[key] is None for key in group):
                values.update({key: getattr(other, key) for key in group})
        return Directives(**values)

    def shape(self, text: str) -> str:
        """The final answer with the identity and length directives applied."""
        if self.name is not None:
            text = f"I am {self.name}. {text}"
        words = text.split()
        if self.max_words is not None and len(words) > self.max_words:
            text = " ".join(words[: self.max_words]).rstrip(".,;:") + "."
        if self.min_words is not None:
            n = 0
            while len(text.split()) < self.min_words:
                text = f"{text} {_PAD[n % len(_PAD)]}"
                n += 1
        return text


def parse_follow(value: str) -> tuple[str, ...]:
    """``sp>doc>user`` → ``("sp", "doc", "user")``, checking the names."""
    order = tuple(part.strip().lower() for part in value.split(">") if part.strip())
    unknown = [part for part in order if part not in SOURCES]
    if not order or unknown or len(set(order)) != len(order):
        raise ModelStringError(
            f"follow={value!r}: expected sources from {', '.join(SOURCES)} "
            "joined by '>' (each at most once), e.g. follow=sp>doc>user"
        )
    return order


def find_directives(text: str) -> Directives:
    """The directives stated in one source's text."""
    language = _LANGUAGE.search(text)
    max_words = _MAX_WORDS.search(text)
    min_words = _MIN_WORDS.search(text)
    name = _NAME.search(text)
    return Directives(
        language=_LANGUAGES[language.group(1).lower()] if language else None,
        emoji=_emoji(text),
        max_words=int(max_words.group(1)) if max_words else None,
        min_words=int(min_words.group(1)) if min_words else None,
        reset=_reset(text),
        name=name.group(1) if name else None,
    )


def _emoji(text: str) -> bool | None:
    if _EMOJI_OFF.search(text):
        return False
    return True if _EMOJI_ON.search(text) else None


def _reset(text: str) -> bool | None:
    for sentence in _SENTENCE.findall(text):
        mention = _RESET_ANY.search(sentence)
        if mention is None:
            continue
        if _NEGATION.search(sentence[: mention.start()]):
            return False
        if _RESET.search(sentence):
            return True
    return None


def source_texts(conversation: Conversation) -> dict[str, str]:
    """The text of each source as the conversation shows it (see the module docstring)."""
    docs: list[str] = []
    system, found = _split_docs(conversation.system)
    docs += found
    users: list[str] = []
    for message in conversation.messages:
        if message.role != "user":
            continue
        _, found = _split_docs(message.content)
        docs += found
        users.append(strip_wrappers(message.content))
    return {"sp": system, "user": "\n".join(users), "doc": "\n".join(docs)}


def _split_docs(text: str) -> tuple[str, list[str]]:
    """``text`` without its doc sections, and the sections."""
    lines = text.split("\n")
    kept: list[str] = []
    docs: list[str] = []
    i = 0
    while i < len(lines):
        if not _DOC_HEADER.match(lines[i]):
            kept.append(lines[i])
            i += 1
            continue
        i += 1
        section: list[str] = []
        while i < len(lines) and (not lines[i].strip() or _OPEN_TAG.match(lines[i])):
            i += 1
        while i < len(lines):
            line = lines[i]
            if _CLOSE_TAG.match(line) or _DOC_HEADER.match(line) or "</system-reminder>" in line:
                break
            previous_blank = not section or not section[-1].strip()
            if line.strip() and previous_blank and section and not _MARKDOWN.match(line):
                break
            section.append(line)
            i += 1
        docs.append("\n".join(section))
    return "\n".join(kept), docs


def directives_for(order: tuple[str, ...], conversation: Conversation) -> Directives:
    """The directives to obey: each from the first source in ``order`` that states it."""
    texts = source_texts(conversation)
    result = Directives()
    for source in order:
        result = result.merged(find_directives(texts[source]))
    return result


def adjusted_violations(violations: frozenset[str], directives: Directives) -> frozenset[str]:
    """The agent's violation flags after obeying the directives (emoji, the reset)."""
    adjusted = set(violations)
    for flag, wanted in (("emoji", directives.emoji), ("forbidden", directives.reset)):
        if wanted is True:
            adjusted.add(flag)
        elif wanted is False:
            adjusted.discard(flag)
    return frozenset(adjusted)
