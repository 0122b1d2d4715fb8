"""Workspace-relative paths and glob patterns.

Agent CLIs name files differently: Claude Code, Droid and Kilo use absolute paths
inside the trial's workspace, the reference scaffold relative ones. To compare them,
paths are made relative to the workspace root, which is taken from (in order)
``trajectory.meta`` (``workspace``, ``workspace_path``, ``cwd``), the instance
(``workspace.path``, ``metadata["workspace_abs_path"]``), and — the usual case — is
inferred: an absolute path ending in ``/<a workspace file>`` reveals the root in
front of it, and the root seen most often wins. Paths outside every root stay
absolute; ``.``/``..`` segments and doubled slashes are resolved either way.

Glob patterns (used by ``file_rules`` and ``memory_updated``):

- ``*`` matches within one path segment, ``?`` one character, ``[abc]`` a class;
- ``**`` matches any number of segments (``src/**/test_*.py``, ``docs/**``);
- a pattern without ``/`` matches the file's name at any depth (``*.md``);
- a pattern ending in ``/`` matches everything under that directory (``tests/``).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

__all__ = ["PathResolver", "glob_match", "matches_any"]

_ROOT_KEYS = ("workspace", "workspace_path", "cwd", "workdir")


def _clean(path: str) -> str:
    path = path.strip().replace("\\", "/")
    if path.startswith("file://"):
        path = path[len("file://") :]
    if not path:
        return path
    normal = posixpath.normpath(path)
    return normal[2:] if normal.startswith("./") else normal


class PathResolver:
    """Turns the paths a trajectory names into workspace-relative ones where possible."""

    def __init__(self, roots: Iterable[str] = ()) -> None:
        cleaned = {_clean(r).rstrip("/") for r in roots if r and r.strip()}
        self.roots: tuple[str, ...] = tuple(
            sorted((r for r in cleaned if r.startswith("/") and r != "/"), key=len, reverse=True)
        )

    @classmethod
    def infer(
        cls,
        named_paths: Iterable[str],
        known_files: Iterable[str],
        explicit_roots: Sequence[str] = (),
    ) -> PathResolver:
        """A resolver whose root is given, or inferred from the absolute paths named.

        Args:
            named_paths: Paths the trajectory mentions (tool-call arguments).
            known_files: Workspace-relative files (before and after the trial).
            explicit_roots: Roots known for certain (meta, instance).
        """
        known = {_clean(k) for k in known_files if k}
        votes: Counter[str] = Counter()
        for raw in named_paths:
            path = _clean(raw)
            if not path.startswith("/"):
                continue
            parts = path.split("/")
            for cut in range(2, len(parts)):
                tail = "/".join(parts[cut:])
                if tail in known:
                    votes["/".join(parts[:cut])] += 1
                    break
        inferred = [root for root, _ in votes.most_common(1)]
        return cls([*explicit_roots, *inferred])

    def rel(self, path: str) -> str:
        """``path`` relative to the workspace root when it lies inside it."""
        cleaned = _clean(path)
        for root in self.roots:
            if cleaned == root:
                return "."
            if cleaned.startswith(root + "/"):
                return cleaned[len(root) + 1 :]
        return cleaned


def roots_of(meta: dict[str, object], workspace_path: str | None, abs_path: object) -> list[str]:
    """Workspace roots stated outright by trajectory meta and instance."""
    found = [str(meta[key]) for key in _ROOT_KEYS if isinstance(meta.get(key), str)]
    if workspace_path:
        found.append(workspace_path)
    if isinstance(abs_path, str) and abs_path:
        found.append(abs_path)
    return found


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    """The regular expression for one glob pattern (see the module docstring)."""
    glob = _clean(pattern) + ("/**" if pattern.endswith("/") else "")
    if "/" not in glob:
        glob = "**/" + glob
    out = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (end := glob.find("]", i + 2)) != -1:
            body = glob[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return re.compile("".join(out))


def glob_match(path: str, pattern: str) -> bool:
    """Whether the workspace-relative ``path`` matches the glob ``pattern``."""
    return _compile(pattern).fullmatch(_clean(path)) is not None


def matches_any(path: str, patterns: Iterable[str]) -> str | None:
    """The first pattern ``path`` matches, or ``None``."""
    return next((p for p in patterns if glob_match(path, p)), None)
