"""``tool_order`` and ``read_before_edit``: the order in which the agent used its tools.

Tools are named by role (``read``, ``write``, ``edit``, ``patch``, ``run``, ``skill``,
``search``, ``other``; see ``_calls``) or by name (compared without case, ``_`` or
``-``: ``run_shell_command`` = ``RunShellCommand``). Only the main conversation
counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import field_validator

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._activity import FileAction, describe, trial_activity
from adhere.judging.verifiers._calls import ROLES, Call, call_paths, name_key

__all__ = ["ReadBeforeEditParams", "ToolOrderParams"]


def _as_list(value: str | list[str]) -> list[str]:
    items = [value] if isinstance(value, str) else list(value)
    if not items or not all(isinstance(v, str) and v.strip() for v in items):
        raise ValueError("give a tool role or name, or a list of them")
    return items


def _fits(call: Call, wanted: Sequence[str]) -> bool:
    for value in wanted:
        if value.lower() in ROLES and call.role == value.lower():
            return True
        if name_key(value) == name_key(call.name):
            return True
    return False


class ToolOrderParams(VerifierParams):
    """Parameters of ``tool_order``.

    Attributes:
        before: Role(s) or tool name(s) that must come first.
        after: Role(s) or tool name(s) that may only be used once a ``before`` call
            was made.
        same_path: The earlier call must name the same file (workspace-relative).
    """

    before: list[str]
    after: list[str]
    same_path: bool = False

    @field_validator("before", "after", mode="before")
    @classmethod
    def _listed(cls, value: str | list[str]) -> list[str]:
        return _as_list(value)


@verifier("tool_order", params=ToolOrderParams)
def tool_order(
    ctx: VerifyContext, *, before: list[str], after: list[str], same_path: bool
) -> Outcome:
    """Every call of an ``after`` tool comes after a call of a ``before`` tool."""
    trial = trial_activity(ctx)
    rel = trial.resolver.rel
    earlier: list[Call] = []
    checked = 0
    for call in trial.calls:
        if _fits(call, after):
            checked += 1
            paths = {rel(p) for p in call_paths(call)}
            ok = any(
                not same_path or paths & {rel(p) for p in call_paths(prior)} for prior in earlier
            )
            if not ok:
                target = f" on {describe(sorted(paths))}" if same_path and paths else ""
                return Outcome(
                    "fail",
                    f"{call.where}: {call.name}{target} before any {' / '.join(before)} call"
                    + (" on the same file" if same_path else ""),
                    evidence=call.evidence,
                )
        if _fits(call, before):
            earlier.append(call)
    if not checked:
        return Outcome("n/a", f"no {' / '.join(after)} call was made")
    return Outcome(
        "pass",
        f"all {checked} {' / '.join(after)} call{'' if checked == 1 else 's'} came after a "
        f"{' / '.join(before)} call",
    )


class ReadBeforeEditParams(VerifierParams):
    """Parameters of ``read_before_edit``.

    Attributes:
        writes_count_as_edits: Overwriting a file that already exists with a write
            tool also needs a read first (default true). Creating a new file never does.
        shell_reads: ``cat``, ``head``, ``tail``, ``sed -n`` … of a file count as
            reading it (default true).
        shell_edits: Shell commands that write an existing file (``sed -i``,
            ``>>``, ``tee``) need a read first too (default false).
    """

    writes_count_as_edits: bool = True
    shell_reads: bool = True
    shell_edits: bool = False


def _needs_read(action: FileAction, existing: set[str], writes: bool, shell: bool) -> bool:
    """Whether ``action`` edits an existing file (and so needs a read first)."""
    if action.kind == "edit":
        return shell or not action.via_shell
    if action.kind == "write" and action.path in existing:
        return shell if action.via_shell else writes
    return False


@verifier("read_before_edit", params=ReadBeforeEditParams)
def read_before_edit(
    ctx: VerifyContext, *, writes_count_as_edits: bool, shell_reads: bool, shell_edits: bool
) -> Outcome:
    """Every file edited was read (or created) earlier in the trajectory."""
    trial = trial_activity(ctx)
    existing = set(ctx.initial_files)
    known: set[str] = set()
    edited: list[str] = []
    unread: list[FileAction] = []
    for action in trial.files:
        if action.call.subagent is not None:
            continue
        if action.kind == "read":
            if shell_reads or not action.via_shell:
                known.add(action.path)
            continue
        if action.kind == "delete":
            existing.discard(action.path)
            continue
        if _needs_read(action, existing, writes_count_as_edits, shell_edits):
            edited.append(action.path)
            if action.path not in known and all(u.path != action.path for u in unread):
                unread.append(action)
        known.add(action.path)
        existing.add(action.path)
    if not edited:
        return Outcome("n/a", "no existing file was edited")
    files = sorted(set(edited))
    if unread:
        first = unread[0]
        others = [u.path for u in unread[1:]]
        more = f"; also unread before editing: {describe(others)}" if others else ""
        return Outcome(
            "fail",
            f"{first.call.where}: {first.call.name} changed {first.path} without reading it first"
            + more,
            evidence=first.call.evidence,
            details={"unread": [u.path for u in unread]},
        )
    return Outcome("pass", f"every edited file was read or created first: {describe(files)}")
