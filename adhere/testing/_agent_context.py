"""Reading an agent conversation: the current turn, the user's request, paths and results.

Everything here is a pure function of the conversation, so the agent policies stay
stateless and deterministic:

- **The current turn** starts after the last assistant message without tool calls
  that a user message follows (a finished loop, or a CLI's canned opening exchange
  such as Qwen Code's "Got it."); user text that arrives between tool results
  (Claude Code's reminders) does not start a turn. The turn's *steps* are its
  assistant messages; the tool messages after step ``k`` are that step's results.
- **The request** is the last user message before the turn's first step that still
  has text once the wrappers CLIs add are removed (``<system-reminder>``,
  ``<environment_details>``, ``<environment_context>``, ``<session_context>``,
  ``<INSTRUCTIONS>`` and the like).
- **The working directory** is read from the phrases the CLIs use: ``<cwd>…</cwd>``
  (Codex), ``Primary working directory: …`` (Claude Code), ``Working directory: …``
  (Kilo), ``working in the directory: …`` (Qwen Code), ``% pwd`` followed by the
  path (Droid), ``Workspace Directories:`` followed by ``- path`` (Gemini CLI).
- **A file's lines** are read from a tool result after dropping line-number
  prefixes when most lines have one (``   1→``, ``1<TAB>``, ``00001| ``, ``1: ``),
  wrapper lines (``<file>``, ``<path>…</path>``, ``<content>``,
  ``<untrusted_context>``) and a shell tool's preamble of ``Key: value`` lines up to
  ``Output:`` (Codex, Qwen Code, Gemini CLI).
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass

from adhere.core import ChatMessage
from adhere.wire import Conversation

__all__ = [
    "Turn",
    "current_turn",
    "file_lines",
    "mentioned_file",
    "resolve_path",
    "strip_wrappers",
    "working_directory",
]

_WRAPPERS = re.compile(
    r"<(system-reminder|environment_details|environment_context|session_context|"
    r"user_instructions|INSTRUCTIONS|ide_selection|ide_opened_file|context)\b[^>]*>.*?</\1>",
    re.DOTALL,
)
_AGENTS_HEADER = re.compile(r"^# AGENTS\.md instructions for .*$", re.MULTILINE)
_CWD = (
    re.compile(r"<cwd>\s*([^<\n]+?)\s*</cwd>"),
    re.compile(r"[Ww]orking directory:\s*(/\S+)"),
    re.compile(r"working in the directory:\s*(/\S+)"),
    re.compile(r"^% pwd\s*\n(/\S+)", re.MULTILINE),
    re.compile(r"Workspace Directories:\**\s*\n\s*-\s*(/\S+)"),
)
_BACKTICKED = re.compile(r"`([^`\s]+)`")
_PATHLIKE = re.compile(
    r"(?<![\w/.@:-])((?:~|\.{1,2})?/?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*)"
    r"(?![\w/-])"
)
_LINE_NUMBER = re.compile(r"^\s*\d+(?:→|\t|\| ?|: |$)")
_WRAPPER_LINE = re.compile(r"^\s*</?(?:file|content|path|type|untrusted_context)>.*$")
_OUTPUT_MARK = re.compile(r"^Output:[ \t]*\n?", re.MULTILINE)
_PREAMBLE = re.compile(r"^\s*$|^\s*<[\w-]+>\s*$|^[A-Z][\w ]{0,40}:.*$|^Process exited .*$")


@dataclass(frozen=True)
class Turn:
    """The part of a conversation the policy is answering now.

    Attributes:
        request: The user's request, wrappers removed (may be empty).
        steps: The assistant messages already sent in this turn.
        results: For each step, the text of the tool messages that answered it.
    """

    request: str
    steps: tuple[ChatMessage, ...]
    results: tuple[tuple[str, ...], ...]


def current_turn(conversation: Conversation) -> Turn:
    """The current turn of ``conversation`` (see the module docstring)."""
    messages = conversation.messages
    start = 0
    for index, message in enumerate(messages):
        if message.role == "assistant" and not message.tool_calls:
            if any(later.role == "user" for later in messages[index + 1 :]):
                start = index + 1
    turn = messages[start:]
    opening = next((i for i, m in enumerate(turn) if m.role == "assistant"), len(turn))
    request = ""
    for message in reversed(turn[:opening]):
        if message.role == "user":
            request = strip_wrappers(message.content)
            if request:
                break
    steps: list[ChatMessage] = []
    results: list[list[str]] = []
    for message in turn[opening:]:
        if message.role == "assistant":
            steps.append(message)
            results.append([])
        elif message.role == "tool" and results:
            results[-1].append(message.content)
    return Turn(request, tuple(steps), tuple(tuple(texts) for texts in results))


def strip_wrappers(text: str) -> str:
    """User text without the context blocks CLIs wrap around the request."""
    return _AGENTS_HEADER.sub("", _WRAPPERS.sub("", text)).strip()


def working_directory(conversation: Conversation) -> str | None:
    """The agent's working directory, when the CLI said it anywhere."""
    texts = [conversation.system, *(m.content for m in conversation.messages if m.role == "user")]
    for pattern in _CWD:
        for text in texts:
            match = pattern.search(text)
            if match:
                return match.group(1).rstrip(".,;:)`'\"") or None
    return None


def mentioned_file(text: str) -> str | None:
    """The first file named in ``text``: a back-ticked path first, else any path-like word."""
    for quoted in _BACKTICKED.finditer(text):
        if _PATHLIKE.fullmatch(quoted.group(1)):
            return quoted.group(1)
    match = _PATHLIKE.search(text)
    return match.group(1) if match else None


def resolve_path(path: str, directory: str | None) -> str:
    """``path`` made absolute against ``directory`` when that is known."""
    if directory is None or path.startswith(("/", "~")):
        return path
    return posixpath.normpath(posixpath.join(directory, path))


def file_lines(result: str) -> list[str]:
    """A file's lines as a read or ``cat`` tool result shows them (see the module doc)."""
    text = _unwrap_json(strip_wrappers(result))
    mark = _OUTPUT_MARK.search(text)
    if mark is not None and all(
        _PREAMBLE.match(line) for line in text[: mark.start()].splitlines()
    ):
        text = text[mark.end() :]
    lines = [line for line in text.splitlines() if not _WRAPPER_LINE.match(line)]
    filled = [line for line in lines if line.strip()]
    if filled and 2 * sum(1 for line in filled if _LINE_NUMBER.match(line)) > len(filled):
        lines = [_LINE_NUMBER.sub("", line, count=1) for line in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _unwrap_json(text: str) -> str:
    """The ``output`` of a JSON tool result (``{"output": …, "metadata": …}``), else ``text``."""
    if not text.startswith("{"):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and isinstance(value.get("output"), str):
        return str(value["output"])
    return text
