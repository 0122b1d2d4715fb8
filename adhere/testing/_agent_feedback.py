"""The ``heeds-feedback`` flag of the ``agent`` policies (a deterministic test double).

A real agent told which rules it broke may do better on the next attempt; this flag
makes the scripted agent do so, so feedback correction (``adhere feedback``) shows a
real, reproducible change. With ``agent:…,heeds-feedback``, when a user message of
the conversation holds a ``<feedback>`` block (the format of
:mod:`adhere.judging._feedback`), the policy drops each deliberate violation that an
item of the block names. Without the block, or without the flag, nothing changes.

An item names a violation when its check id (``_`` read as a space) or its
description matches one of these keywords (case-insensitive):

- ``emoji``: ``emoji``;
- ``wrong-language``: ``language``, or ``in English`` / ``in French`` / ``in German``
  (and other language names);
- ``forbidden``: ``reset --hard`` (or ``reset hard``), ``forbidden``, ``destructive``;
- ``edit-without-read``: ``read`` (``reads``, ``reading``) followed within three words
  by ``before`` or ``first``, ``without reading``, ``unread``.

Items naming nothing the policy does wrong on purpose (a missing test run, a wrong
answer) change nothing: the scripted agent cannot learn new skills, only stop
breaking the rules it breaks deliberately. The feedback block is also left out when
the policy looks for the file a request names, with or without the flag, so the
block's wording never redirects an edit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from adhere.judging import FeedbackItem, find_feedback, strip_feedback
from adhere.wire import Conversation

__all__ = ["HEEDS_FEEDBACK", "KEYWORDS", "heeded_violations", "named_violations", "request_text"]

HEEDS_FEEDBACK = "heeds-feedback"
"""The flag: ``agent:edit,emoji,heeds-feedback``."""

_LANGUAGES = "english|french|german|spanish|italian|portuguese|chinese|japanese|korean"
KEYWORDS: Mapping[str, tuple[re.Pattern[str], ...]] = {
    "emoji": (re.compile(r"emoji"),),
    "wrong-language": (re.compile(r"language"), re.compile(rf"\bin (?:{_LANGUAGES})\b")),
    "forbidden": (
        re.compile(r"reset\W+(?:--)?hard"),
        re.compile(r"forbidden"),
        re.compile(r"destructive"),
    ),
    "edit-without-read": (
        re.compile(r"\bread(?:s|ing)?(?:\W+\w+){0,3}?\W+(?:before|first)\b"),
        re.compile(r"without reading"),
        re.compile(r"\bunread\b"),
    ),
}
"""Violation → the patterns that name it (matched on lower-cased text)."""


def named_violations(item: FeedbackItem) -> frozenset[str]:
    """The violations a feedback item names (see the module docstring)."""
    text = f"{item.check_id.replace('_', ' ')} {item.description}".lower()
    return frozenset(
        violation
        for violation, patterns in KEYWORDS.items()
        if any(pattern.search(text) for pattern in patterns)
    )


def heeded_violations(violations: frozenset[str], conversation: Conversation) -> frozenset[str]:
    """``violations`` minus those named by feedback in the conversation's user messages."""
    named: set[str] = set()
    for message in conversation.messages:
        if message.role == "user":
            for item in find_feedback(message.content):
                named |= named_violations(item)
    return violations - named


def request_text(request: str) -> str:
    """The user's request without feedback blocks (where the policy looks for a file)."""
    return strip_feedback(request)
