"""Reading shell commands the way a shell would, well enough to judge them.

A command (a string, or an argv array) is split into *simple commands* at unquoted
``;``, ``&&``, ``||``, ``|``, ``&`` and newlines; heredoc bodies (``<<EOF`` … ``EOF``)
are kept with the command that opened them, never read as commands. Each simple
command is tokenized with :mod:`shlex`; leading ``VAR=value`` assignments and the
wrappers ``sudo``, ``env``, ``time``, ``nice``, ``nohup``, ``timeout``, ``command``,
``exec`` and ``stdbuf`` are set aside; output redirections (``>``, ``>>``, ``&>``) are
recorded as files written. A shell started with a script (``bash -lc "…"``,
``sh -c '…'``, arrays such as ``["bash", "-lc", "…"]``) and ``eval "…"`` are opened
and their scripts read the same way (nested up to 5 levels).

Known limits: command substitution (``$(…)``, backticks), functions, aliases and
variables are not expanded; a quoted ``>`` is read as a redirection.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SimpleCommand", "command_value", "file_effects", "parse_command", "program"]

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"})
_WRAPPERS = frozenset({"sudo", "env", "time", "nice", "nohup", "command", "exec", "stdbuf"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_REDIRECT = re.compile(r"^(?:\d*|&)(>>?|<)(?:\|)?(.*)$")
_MAX_DEPTH = 5
_READERS = frozenset({"cat", "head", "tail", "less", "more", "nl", "bat", "batcat", "view"})
_VALUED: dict[str, frozenset[str]] = {
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "sed": frozenset({"-e", "-f", "--expression", "--file", "-l"}),
}


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command.

    Attributes:
        argv: Its words after wrappers and redirections were set aside.
        raw: Its text as written.
        writes: Files its output redirections write.
        heredoc: The bodies of the heredocs it reads, joined.
        depth: How many shells deep it was found (0 = the command itself).
        wrapped: The wrappers set aside in front of it (``sudo``, ``timeout`` …).
        opens_script: It starts a shell (or ``eval``) whose script was read as well.
    """

    argv: tuple[str, ...]
    raw: str
    writes: tuple[str, ...] = ()
    heredoc: str = ""
    depth: int = 0
    wrapped: tuple[str, ...] = ()
    opens_script: bool = False

    @property
    def text(self) -> str:
        """The words joined by single spaces (quotes and extra blanks gone)."""
        return " ".join(self.argv)


def command_value(arguments: dict[str, Any] | Any, keys: Sequence[str]) -> str | None:
    """The command a call carries under one of ``keys``, as one shell string.

    Arrays are joined with shell quoting, so ``["bash", "-lc", "a && b"]`` reads back
    as the same command.
    """
    if not isinstance(arguments, dict):
        return None
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return shlex.join(value)
    return None


def program(argv: Sequence[str]) -> str:
    """The program's base name (``/usr/bin/git`` → ``git``), or ``""``."""
    return posixpath.basename(argv[0]) if argv else ""


def parse_command(text: str, depth: int = 0) -> list[SimpleCommand]:
    """Every simple command in ``text``, shells and ``eval`` opened (see module doc)."""
    out: list[SimpleCommand] = []
    for piece, heredoc in _split(text):
        try:
            tokens = shlex.split(piece, posix=True)
        except ValueError:
            tokens = piece.split()
        argv, writes = _redirections(tokens)
        argv, wrapped = _unwrap(argv)
        if not argv:
            continue
        script = _inner_script(argv) if depth < _MAX_DEPTH else None
        out.append(
            SimpleCommand(
                tuple(argv), piece.strip(), writes, heredoc, depth, wrapped, script is not None
            )
        )
        if script is not None:
            out.extend(parse_command(script, depth + 1))
    return out


def _inner_script(argv: Sequence[str]) -> str | None:
    name = program(argv)
    if name == "eval":
        return " ".join(argv[1:]) or None
    if name not in _SHELLS:
        return None
    for i, token in enumerate(argv[1:], start=1):
        if token.startswith("-") and not token.startswith("--") and "c" in token[1:]:
            return argv[i + 1] if i + 1 < len(argv) else None
        if not token.startswith("-"):
            return None  # a script file, not a command string
    return None


def _unwrap(argv: list[str]) -> tuple[list[str], tuple[str, ...]]:
    wrapped: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if _ASSIGNMENT.match(token):
            i += 1
        elif program([token]) in _WRAPPERS:
            wrapped.append(program([token]))
            i += 1
            while i < len(argv) and (argv[i].startswith("-") or _ASSIGNMENT.match(argv[i])):
                i += 1
        elif program([token]) == "timeout":
            wrapped.append("timeout")
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                i += 1
            i += 1  # the duration
        else:
            break
    return argv[i:], tuple(wrapped)


def _redirections(tokens: list[str]) -> tuple[list[str], tuple[str, ...]]:
    argv: list[str] = []
    writes: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        match = _REDIRECT.match(token) if token[:1] in "0123456789&><" else None
        if match is None:
            argv.append(token)
            i += 1
            continue
        target = match.group(2)
        if not target and i + 1 < len(tokens):
            target = tokens[i + 1]
            i += 1
        i += 1
        if match.group(1) != "<" and target and not target.startswith(("&", "/dev/")):
            writes.append(target)
    return argv, tuple(writes)


def _split(text: str) -> list[tuple[str, str]]:
    """Simple-command texts with their heredoc bodies, split at unquoted operators."""
    pieces: list[tuple[str, str]] = []
    current: list[str] = []
    pending: list[tuple[str, bool]] = []  # heredoc delimiters awaiting the line end
    bodies: list[str] = []
    quote = ""
    i = 0

    def flush() -> None:
        while current and current[-1].isspace():  # a trailing escaped space stays
            current.pop()
        piece = "".join(current).lstrip()
        if piece:
            pieces.append((piece, "\n".join(bodies)))
        current.clear()
        bodies.clear()

    while i < len(text):
        char = text[i]
        if quote:
            current.append(char)
            if char == "\\" and quote == '"' and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif char == quote:
                quote = ""
            i += 1
            continue
        if char in "'\"":
            quote = char
            current.append(char)
        elif char == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":  # a backslash-newline continues the line
                current.append(text[i : i + 2])
            i += 1
        elif char == "#" and (not current or current[-1].isspace()):
            while i + 1 < len(text) and text[i + 1] != "\n":
                i += 1
        elif text.startswith("<<<", i):  # a here-string: its word is on this line
            current.append("<<<")
            i += 3
            continue
        elif text.startswith("<<", i):
            match = re.match(r"<<(-?)\s*(['\"]?)([\w.-]+)\2", text[i:])
            if match:
                pending.append((match.group(3), bool(match.group(1))))
                current.append(match.group(0))
                i += len(match.group(0))
                continue
            current.append(char)
        elif char == "\n":
            if pending:
                i = _read_heredocs(text, i + 1, pending, bodies)
                pending.clear()
                flush()
                continue
            flush()
        elif char in ";|&" and not _is_redirect_amp(text, i, current):
            flush()
            if text.startswith(("&&", "||", ";;"), i):
                i += 1
        else:
            current.append(char)
        i += 1
    flush()
    return pieces


def _is_redirect_amp(text: str, i: int, current: list[str]) -> bool:
    """Whether the ``&`` at ``i`` belongs to a redirection (``2>&1``, ``&>``, ``>&``)."""
    if text[i] != "&":
        return text[i] == "|" and bool(current) and current[-1].endswith(">")
    before = current[-1][-1:] if current else ""
    return before in (">", "<") or text.startswith("&>", i)


def _read_heredocs(
    text: str, start: int, pending: list[tuple[str, bool]], bodies: list[str]
) -> int:
    """Consume the heredoc bodies after a line end; return where commands resume."""
    position = start
    for delimiter, strip_tabs in pending:
        lines: list[str] = []
        while position < len(text):
            end = text.find("\n", position)
            end = len(text) if end == -1 else end
            line = text[position:end]
            position = end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
            lines.append(line)
        bodies.append("\n".join(lines))
    return min(position, len(text))


def file_effects(command: SimpleCommand) -> tuple[list[str], list[str]]:
    """Files a simple command reads and writes, as far as its words show.

    Reads: the file operands of ``cat``, ``head``, ``tail``, ``less``, ``more``, ``nl``,
    ``bat`` and of ``sed`` without ``-i``. Writes: output redirections, ``tee``
    operands, ``sed -i`` operands, ``touch`` operands and the destination of ``cp`` and
    ``mv``.
    """
    name = program(command.argv)
    operands = _operands(command.argv[1:], _VALUED.get(name, frozenset()))
    reads: list[str] = []
    writes = list(command.writes)
    if name in _READERS:
        reads.extend(operands)
    elif name == "sed":
        in_place = any(a == "-i" or a.startswith(("-i", "--in-place")) for a in command.argv[1:])
        scripted = any(a in ("-e", "-f", "--expression", "--file") for a in command.argv[1:])
        files = operands if scripted else operands[1:]
        (writes if in_place else reads).extend(files)
    elif name in ("tee", "touch"):
        writes.extend(operands)
    elif name in ("cp", "mv") and len(operands) >= 2:
        writes.append(operands[-1])
    return reads, writes


def _operands(args: Sequence[str], valued: frozenset[str]) -> list[str]:
    """Non-option words, skipping the values of options such as ``-n 20``."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in valued:
            skip = True
        elif not arg.startswith("-") or arg == "-":
            if arg != "-" and not arg.lstrip("+").isdigit():
                out.append(arg)
    return out
