r"""``command_executed`` and ``tests_run``: what the agent ran in a shell.

Shell calls are recognised by tool name and a command argument (see ``_calls``) and
read into simple commands (see ``_shell``): ``git reset --hard`` is found inside
``bash -lc "cd repo && git reset --hard"``, in argv arrays and after ``&&``.

A pattern or substring is matched against each simple command, as written and with
quotes and extra blanks removed, so ``^git\s+reset\b`` anchors on the command's
start. Shells whose script was opened are matched through the script's commands, and
``echo``/``printf`` (which only print) and heredoc bodies are never matched; a pattern
cannot span ``&&`` or ``|``. Sub-agents' commands count too (their evidence has no
message index of the main conversation).

Test runners recognised by ``tests_run`` (after ``uv run``, ``poetry run``, ``npx``,
``pnpm exec``, ``bundle exec``, ``python -m`` and the like are set aside): ``pytest``,
``py.test``, ``unittest``, ``tox``, ``nox``, ``nose2``; ``npm|pnpm|yarn|bun test`` and
``… run test*``; ``jest``, ``vitest``, ``mocha``, ``ava``, ``karma``; ``go``, ``cargo``,
``deno``, ``dotnet``, ``mix``, ``swift``, ``flutter``, ``dart``, ``bazel`` + ``test``;
``mvn``/``gradle`` with ``test``/``verify``/``check``; ``make test|check``,
``just test``, ``rake test|spec``, ``rspec``, ``phpunit``, ``ctest``; and
``python tests/…`` or ``python test_x.py``. A run counts whether or not it passed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import Field, field_validator, model_validator

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._activity import ShellRun, trial_activity
from adhere.judging.verifiers._paths import matches_any
from adhere.judging.verifiers._replies import snippet
from adhere.judging.verifiers._shell import program

__all__ = ["CommandExecutedParams", "TestsRunParams", "is_test_command"]


def _valid_regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regular expression: {exc}") from None
    return value


class CommandExecutedParams(VerifierParams):
    """Parameters of ``command_executed`` (``pattern`` or ``contains`` is required).

    Attributes:
        pattern: A regular expression searched in each command text.
        contains: A substring looked for in each command text.
        ignore_case: Match without regard to case.
        expect: ``absent`` (default: the command is forbidden) or ``present``.
        include_subagents: Count sub-agents' commands too (default true).
    """

    pattern: str | None = None
    contains: str | None = None
    ignore_case: bool = False
    expect: Literal["absent", "present"] = "absent"
    include_subagents: bool = True

    @field_validator("pattern")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return _valid_regex(value)

    @model_validator(mode="after")
    def _something(self) -> CommandExecutedParams:
        if not self.pattern and not self.contains:
            raise ValueError("give 'pattern' (a regular expression) or 'contains'")
        return self


def _matches(run: ShellRun, pattern: str | None, contains: str | None, flags: int) -> str | None:
    for text in run.texts():
        if pattern is not None and re.search(pattern, text, flags):
            return text
        if contains is not None:
            haystack, needle = (text.lower(), contains.lower()) if flags else (text, contains)
            if needle in haystack:
                return text
    return None


@verifier("command_executed", params=CommandExecutedParams)
def command_executed(
    ctx: VerifyContext,
    *,
    pattern: str | None,
    contains: str | None,
    ignore_case: bool,
    expect: Literal["absent", "present"],
    include_subagents: bool,
) -> Outcome:
    """A matching shell command was (``present``) or was not (``absent``) run."""
    trial = trial_activity(ctx, subagents=include_subagents)
    wanted = f"/{pattern}/" if pattern else repr(contains)
    flags = re.IGNORECASE if ignore_case else 0
    for run in trial.shell:
        hit = _matches(run, pattern, contains, flags)
        if hit is None:
            continue
        found = f"{run.call.where}: {run.call.name} ran `{snippet(run.text, 120)}`"
        result: Literal["pass", "fail"] = "fail" if expect == "absent" else "pass"
        return Outcome(result, f"{found} (matches {wanted})", evidence=run.call.evidence)
    checked = f"{len(trial.shell)} shell command{'' if len(trial.shell) == 1 else 's'}"
    if expect == "absent":
        return Outcome("pass", f"none of {checked} matches {wanted}")
    return Outcome("fail", f"none of {checked} matches {wanted}")


_RUNNER_PREFIXES = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi"})
_NPX = frozenset({"npx", "bunx", "pnpx"})
_TOOLS = frozenset(
    {"pytest", "py.test", "unittest", "tox", "nox", "nose2", "nosetests", "jest", "vitest"}
    | {"mocha", "ava", "karma", "rspec", "phpunit", "ctest", "pytest-3"}
)
_NODE = frozenset({"npm", "pnpm", "yarn", "bun"})
_SUBCOMMAND = frozenset(
    {"go", "cargo", "deno", "dotnet", "mix", "swift", "flutter", "dart", "bazel", "bazelisk"}
)
_BUILD = frozenset({"mvn", "mvnw", "gradle", "gradlew"})
_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)?)?$")
_TEST_FILE = re.compile(r"(?:^|/)(?:tests?/|test_[^/]*\.py$|[^/]*_test\.py$)")
_VALUED_OPTIONS = frozenset(
    {"--with", "--python", "-p", "--extra", "--group", "--directory", "--project", "--package"}
    | {"-e", "--env", "--from"}
)


def _strip_launchers(argv: Sequence[str]) -> list[str]:
    argv = list(argv)
    for _ in range(4):
        name = program(argv)
        rest = argv[1:]
        if name in _RUNNER_PREFIXES and rest[:1] == ["run"]:
            argv = _skip_options(rest[1:])
        elif name in _NPX:
            argv = _skip_options(rest)
        elif name in ("pnpm", "yarn") and rest[:1] and rest[0] in ("exec", "dlx"):
            argv = _skip_options(rest[1:])
        elif name == "bundle" and rest[:1] == ["exec"]:
            argv = rest[1:]
        elif _PYTHON.match(name) and "-m" in rest:
            argv = rest[rest.index("-m") + 1 :]
        else:
            break
    return argv


def _skip_options(args: Sequence[str]) -> list[str]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _VALUED_OPTIONS else 1
    return list(args[i:])


def is_test_command(argv: Sequence[str]) -> bool:
    """Whether a simple command runs a test suite (see the module docstring)."""
    argv = _strip_launchers(argv)
    name = program(argv)
    rest = [a for a in argv[1:] if not a.startswith("-")]
    if name in _TOOLS:
        return True
    if name in _NODE:
        if rest[:1] and rest[0] in ("test", "t", "tst"):
            return True
        return (
            rest[:1] in (["run"], ["run-script"]) and len(rest) > 1 and rest[1].startswith("test")
        )
    if name in _SUBCOMMAND:
        return rest[:1] == ["test"]
    if name in _BUILD:
        return any(a in ("test", "verify", "check") or a.endswith(":test") for a in rest)
    if name == "make":
        return any(a in ("test", "tests", "check") for a in rest)
    if name in ("just", "rake"):
        return rest[:1] in (["test"], ["tests"], ["spec"])
    if _PYTHON.match(name):
        return bool(rest) and _TEST_FILE.search(rest[0]) is not None
    return False


class TestsRunParams(VerifierParams):
    """Parameters of ``tests_run``.

    Attributes:
        pattern: A regular expression that identifies the test command instead of the
            built-in list of runners.
        after_last_change: The run must come after the last code change.
        ignore_globs: Changes to these files are not code changes (for
            ``after_last_change``).
        include_subagents: Count sub-agents' test runs too (default true; they never
            count as coming after a change of the main conversation).
    """

    __test__ = False  # not a pytest test class, despite the name

    pattern: str | None = None
    after_last_change: bool = False
    ignore_globs: list[str] = Field(
        default_factory=lambda: ["*.md", "*.rst", "*.txt", "*.log", "*.adoc", "LICENSE*"]
    )
    include_subagents: bool = True

    @field_validator("pattern")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return _valid_regex(value)


def _is_test_run(run: ShellRun, pattern: str | None) -> bool:
    if pattern is not None:
        return any(re.search(pattern, text) for text in run.texts())
    return any(is_test_command(command.argv) for command in run.commands)


@verifier("tests_run", params=TestsRunParams)
def tests_run(
    ctx: VerifyContext,
    *,
    pattern: str | None,
    after_last_change: bool,
    ignore_globs: list[str],
    include_subagents: bool,
) -> Outcome:
    """A test command was run (after the last code change, if asked)."""
    trial = trial_activity(ctx, subagents=include_subagents)
    runs = [run for run in trial.shell if _is_test_run(run, pattern)]
    what = f"/{pattern}/" if pattern else "a test runner"
    if not after_last_change:
        if runs:
            run = runs[0]
            return Outcome(
                "pass",
                f"{run.call.where}: ran `{snippet(run.text, 120)}`",
                evidence=run.call.evidence,
            )
        return Outcome("fail", f"no shell command ran {what} ({len(trial.shell)} checked)")
    changes = [
        a
        for a in trial.files
        if a.kind != "read" and a.call.subagent is None and not matches_any(a.path, ignore_globs)
    ]
    if not changes:
        if runs:
            return Outcome(
                "pass",
                f"no code was changed; {runs[0].call.where} ran `{snippet(runs[0].text, 120)}`",
                evidence=runs[0].call.evidence,
            )
        return Outcome("n/a", "no code was changed and no tests were run")
    last = max(changes, key=lambda a: trial.position(a.call))
    after = [
        r
        for r in runs
        if r.call.subagent is None and trial.position(r.call) > trial.position(last.call)
    ]
    if after:
        run = after[-1]
        return Outcome(
            "pass",
            f"{run.call.where} ran `{snippet(run.text, 120)}` after the last code change "
            f"({last.call.where}, {last.path})",
            evidence=run.call.evidence,
        )
    before = f"; the last test run was at {runs[-1].call.where}" if runs else ""
    return Outcome(
        "fail",
        f"no test run after the last code change ({last.call.where}: {last.kind} {last.path})"
        + before,
        evidence=last.call.evidence,
    )
