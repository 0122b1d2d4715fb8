"""What a trial did, in order: shell commands run and files read, written and edited.

File actions come from file tools (read/write/edit/patch roles, see ``_calls``) and
from shell commands (``cat``/``head``/``sed -n`` reads; redirections, ``tee``,
``sed -i``, ``touch``, ``cp``/``mv`` writes; ``apply_patch`` heredocs). Every path
is made workspace-relative with one resolver for the whole trial (see ``_paths``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adhere.judging._verify import VerifyContext
from adhere.judging.verifiers._calls import COMMAND_KEYS, Call, call_paths, calls, patch_actions
from adhere.judging.verifiers._paths import PathResolver, roots_of
from adhere.judging.verifiers._shell import (
    SimpleCommand,
    command_value,
    file_effects,
    parse_command,
    program,
)

__all__ = ["Activity", "FileAction", "ShellRun", "describe", "trial_activity"]

ActionKind = Literal["read", "write", "edit", "delete"]
_PRINTERS = frozenset({"echo", "printf"})


@dataclass(frozen=True)
class ShellRun:
    """A shell command a call ran, and its simple commands."""

    call: Call
    text: str
    commands: tuple[SimpleCommand, ...]

    def texts(self) -> list[str]:
        """The strings a command pattern is matched against.

        Each simple command as written and with quoting and extra blanks removed —
        except shells whose script was opened (their commands are listed instead) and
        ``echo``/``printf``, which only print. A command that cannot be parsed is
        matched as sent.
        """
        out: list[str] = []
        for command in self.commands:
            if command.opens_script or program(command.argv) in _PRINTERS:
                continue
            out.extend((command.raw, command.text))
        return list(dict.fromkeys(out)) if self.commands else [self.text]


@dataclass(frozen=True)
class FileAction:
    """One file read, written, edited or deleted, by a tool or a shell command."""

    kind: ActionKind
    path: str
    call: Call
    via_shell: bool = False


@dataclass(frozen=True)
class Activity:
    """A trial's calls, shell runs and file actions, in order."""

    calls: tuple[Call, ...]
    shell: tuple[ShellRun, ...]
    files: tuple[FileAction, ...]
    resolver: PathResolver

    @staticmethod
    def position(call: Call) -> int:
        """The call's position among all calls (its order in time)."""
        return call.order


def _shell_run(call: Call) -> ShellRun | None:
    if call.role != "run":
        return None
    text = command_value(dict(call.arguments), COMMAND_KEYS)
    if text is None:
        return None
    return ShellRun(call, text, tuple(parse_command(text)))


def _raw_actions(call: Call, run: ShellRun | None) -> list[tuple[ActionKind, str, bool]]:
    if call.role == "read":
        return [("read", p, False) for p in call_paths(call)]
    if call.role in ("write", "edit"):
        kind: ActionKind = "write" if call.role == "write" else "edit"
        return [(kind, p, False) for p in call_paths(call)]
    if call.role == "patch":
        text = "\n".join(v for v in call.arguments.values() if isinstance(v, str))
        return [(k, p, False) for k, p in patch_actions(text)]
    out: list[tuple[ActionKind, str, bool]] = []
    for command in run.commands if run else ():
        reads, writes = file_effects(command)
        out.extend(("read", p, True) for p in reads)
        out.extend(("write", p, True) for p in writes)
        if command.heredoc and (
            program(command.argv) == "apply_patch" or "*** Begin Patch" in command.heredoc
        ):
            out.extend((k, p, True) for k, p in patch_actions(command.heredoc))
    return out


def trial_activity(ctx: VerifyContext, *, subagents: bool = False) -> Activity:
    """Calls, shell runs and file actions of the trial (sub-agents' too if asked)."""
    found = calls(ctx.trajectory, subagents=subagents)
    runs = [_shell_run(c) for c in found]
    raw = [(c, _raw_actions(c, run)) for c, run in zip(found, runs, strict=True)]
    named = [path for _, actions in raw for _, path, _ in actions]
    meta = ctx.trajectory.meta
    explicit = roots_of(
        meta, ctx.instance.workspace.path, ctx.instance.metadata.get("workspace_abs_path")
    )
    resolver = PathResolver.infer(named, [*ctx.initial_files, *ctx.final_files], explicit)
    files = tuple(
        FileAction(kind, resolver.rel(path), call, via_shell)
        for call, actions in raw
        for kind, path, via_shell in actions
    )
    shell = tuple(run for run in runs if run is not None)
    return Activity(tuple(found), shell, files, resolver)


def describe(paths: Sequence[str], limit: int = 5) -> str:
    """Up to ``limit`` paths, then how many more."""
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")
