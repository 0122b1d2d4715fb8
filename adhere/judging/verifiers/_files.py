"""``file_rules`` and ``memory_updated``: which files the trial created, changed or deleted.

Changed files are ``trajectory.files`` (created or modified; a file is *new* when it
was not in the workspace before) plus ``trajectory.meta["deleted_files"]``. Paths are
workspace-relative; glob syntax is described in ``_paths``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import Field, field_validator, model_validator

from adhere.judging._verify import Outcome, OutcomeResult, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._activity import describe, trial_activity
from adhere.judging.verifiers._paths import glob_match, matches_any

__all__ = [
    "CLI_STATE_GLOBS",
    "MEMORY_GLOBS",
    "FileRulesParams",
    "MemoryUpdatedParams",
    "changed_paths",
]

MEMORY_GLOBS = ("MEMORY.md", "memory/**", "memory-bank/**", ".claude/memory/**")
"""Memory files by default: ``MEMORY.md`` at any depth, and anything under the
workspace's ``memory/``, ``memory-bank/`` or ``.claude/memory/``."""


CLI_STATE_GLOBS = (".kilocode/**", ".factory/**", ".codex/**", ".gemini/**", ".qwen/**")
"""Files agent CLIs write for their own bookkeeping (Kilo adds ``.kilocode/.gitignore``)."""


def changed_paths(ctx: VerifyContext) -> tuple[list[str], list[str], list[str]]:
    """``(changed, new, deleted)`` workspace-relative paths, sorted."""
    deleted_raw = ctx.trajectory.meta.get("deleted_files") or []
    deleted = sorted(str(p) for p in deleted_raw) if isinstance(deleted_raw, list) else []
    changed = sorted(ctx.trajectory.files)
    new = [p for p in changed if p not in ctx.initial_files]
    return changed, new, deleted


def _check_regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regular expression: {exc}") from None
    return value


class FileRulesParams(VerifierParams):
    """Parameters of ``file_rules`` (at least one rule is required).

    Attributes:
        allowed_globs: Every created, changed or deleted file matches one of these.
        forbidden_globs: No created, changed or deleted file matches any of these.
        must_exist: After the trial, each of these paths or globs matches a file.
        must_not_exist: After the trial, none of these paths or globs matches a file.
        name_pattern: Every new file's name (its last path segment) fully matches
            this regular expression.
        ignore_globs: Changes to these files are left out of every rule (default:
            the agent CLIs' own state directories, ``CLI_STATE_GLOBS``).
    """

    allowed_globs: list[str] | None = None
    forbidden_globs: list[str] = Field(default_factory=list)
    must_exist: list[str] = Field(default_factory=list)
    must_not_exist: list[str] = Field(default_factory=list)
    name_pattern: str | None = None
    ignore_globs: list[str] = Field(default_factory=lambda: list(CLI_STATE_GLOBS))

    @field_validator("name_pattern")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return _check_regex(value)

    @model_validator(mode="after")
    def _some_rule(self) -> FileRulesParams:
        if self.allowed_globs is None and not (
            self.forbidden_globs or self.must_exist or self.must_not_exist or self.name_pattern
        ):
            raise ValueError(
                "give at least one of allowed_globs, forbidden_globs, must_exist, "
                "must_not_exist, name_pattern"
            )
        return self


def _existing(final: Sequence[str], pattern: str) -> list[str]:
    return [p for p in final if p == pattern or glob_match(p, pattern)]


@verifier("file_rules", params=FileRulesParams)
def file_rules(
    ctx: VerifyContext,
    *,
    allowed_globs: list[str] | None,
    forbidden_globs: list[str],
    must_exist: list[str],
    must_not_exist: list[str],
    name_pattern: str | None,
    ignore_globs: list[str],
) -> Outcome:
    """Created, changed and deleted files follow the given path and naming rules.

    Rules about changed files pass when nothing changed; ``name_pattern`` is ``n/a``
    when no file was created. The verdict is ``fail`` if any rule fails, ``pass`` if
    at least one passes, otherwise ``n/a``.
    """
    changed, new, deleted = changed_paths(ctx)
    new = [p for p in new if not matches_any(p, ignore_globs)]
    touched = sorted(p for p in {*changed, *deleted} if not matches_any(p, ignore_globs))
    final = sorted(ctx.final_files)
    failures: list[str] = []
    culprits: list[str] = []
    results: list[OutcomeResult] = []
    if allowed_globs is not None:
        outside = [p for p in touched if not matches_any(p, allowed_globs)]
        if outside:
            failures.append(f"changed outside the allowed paths: {describe(outside)}")
            culprits.extend(outside)
        results.append("fail" if outside else "pass")
    if forbidden_globs:
        hit = [p for p in touched if matches_any(p, forbidden_globs)]
        if hit:
            failures.append(f"changed forbidden paths: {describe(hit)}")
            culprits.extend(hit)
        results.append("fail" if hit else "pass")
    for pattern in must_exist:
        ok = bool(_existing(final, pattern))
        if not ok:
            failures.append(f"no file matches {pattern!r} after the trial")
        results.append("pass" if ok else "fail")
    for pattern in must_not_exist:
        present = _existing(final, pattern)
        if present:
            failures.append(f"{describe(present)} exists after the trial (must not)")
            culprits.extend(present)
        results.append("fail" if present else "pass")
    if name_pattern is not None:
        bad = [p for p in new if not re.fullmatch(name_pattern, posixpath.basename(p))]
        if bad:
            failures.append(f"new files not named like /{name_pattern}/: {describe(bad)}")
            culprits.extend(bad)
        results.append(("fail" if bad else "pass") if new else "n/a")
    if failures:
        return Outcome(
            "fail",
            "; ".join(failures),
            evidence=_writer(ctx, culprits),
            details={"touched": touched},
        )
    if "pass" in results:
        what = f"{len(touched)} changed file{'' if len(touched) == 1 else 's'}"
        shown = f" ({describe(touched)})" if touched else ""
        return Outcome("pass", f"all rules hold; {what}{shown}", details={"touched": touched})
    return Outcome("n/a", "no file was created, so the naming rule did not arise")


def _writer(ctx: VerifyContext, paths: Sequence[str]) -> int | None:
    """The message of the last main-conversation call that changed one of ``paths``."""
    wanted = set(paths)
    evidence = [
        a.call.evidence
        for a in trial_activity(ctx).files
        if a.kind != "read" and a.path in wanted and a.call.evidence is not None
    ]
    return evidence[-1] if evidence else None


class MemoryUpdatedParams(VerifierParams):
    """Parameters of ``memory_updated``.

    Attributes:
        paths: Memory files by exact workspace-relative path.
        globs: Memory files by glob (default: the memory patterns, when ``paths`` is
            not given either).
        contains: A regular expression the updated memory file's text must contain
            (searched in each created or changed memory file).
        expect: ``present`` (default: a memory file was updated) or ``absent`` (none
            was).
    """

    paths: list[str] = Field(default_factory=list)
    globs: list[str] | None = None
    contains: str | None = None
    expect: Literal["present", "absent"] = "present"

    @field_validator("contains")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return _check_regex(value)


@verifier("memory_updated", params=MemoryUpdatedParams)
def memory_updated(
    ctx: VerifyContext,
    *,
    paths: list[str],
    globs: list[str] | None,
    contains: str | None,
    expect: Literal["present", "absent"],
) -> Outcome:
    """A memory file was created or changed (and holds the expected text, if given)."""
    patterns = list(globs) if globs is not None else ([] if paths else list(MEMORY_GLOBS))
    changed, _, _ = changed_paths(ctx)
    memory = [p for p in changed if p in paths or matches_any(p, patterns)]
    if contains is not None:
        memory = [p for p in memory if re.search(contains, ctx.final_files.get(p, ""))]
    evidence = _writer(ctx, memory) if memory else None
    wanted = " holding /" + contains + "/" if contains else ""
    if memory:
        found = f"memory file{'s' if len(memory) > 1 else ''} updated{wanted}: {describe(memory)}"
        return Outcome("pass" if expect == "present" else "fail", found, evidence=evidence)
    where = describe([*paths, *patterns])
    missing = f"no memory file ({where}) was created or changed{wanted}"
    return Outcome("fail" if expect == "present" else "pass", missing)
