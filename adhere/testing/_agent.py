"""The ``agent`` policies: scripted, tool-driving behaviours for real coding-agent CLIs.

``agent:BEHAVIOUR[,FLAG…][,key=value…]`` drives whatever CLI sends the request through
a short, realistic loop, using the tools *that CLI* offers, found by role (see
:mod:`adhere.testing._tool_roles`). The server stays stateless: the step is the
number of assistant messages already in the current turn (see
:mod:`adhere.testing._agent_context`), so a second user message after a
finished loop starts the behaviour again.

Behaviours (the steps before the final answer):

- ``read``: read the file, then answer quoting its first line;
- ``edit``: read the file, edit it (add a line after its first line), then answer;
- ``run``: run the command, then answer quoting the first line of its output;
- ``skill``: invoke the skill, then answer;
- ``answer`` (the default): just answer.

Options: ``file=PATH`` (default: a file named in the user's request, else
``README.md``; made absolute against the working directory when the CLI names one),
``command=CMD`` (default ``ls``), ``skill=NAME`` (default: see
:mod:`adhere.testing._agent_skills`), ``say=TEXT`` (the final answer's text).

Deliberate violations, as flags (several may combine, e.g. ``agent:edit,emoji``):
``emoji`` (the final answer ends with emoji), ``wrong-language`` (the final answer is in
French, or German for a French request), ``forbidden`` (runs ``git reset --hard``
before answering), ``edit-without-read`` (edits the file before reading it; for
``edit`` the loop becomes edit, read, answer, otherwise a blind edit comes first). A
violation given as the behaviour (``agent:emoji``) means ``answer`` with that flag.
``follow=sp|user|doc`` (or a precedence list ``sp>doc>user``) obeys the language,
emoji, length, ``git reset --hard`` and identity directives of the named sources and
ignores contradicting ones (see :mod:`adhere.testing._agent_conflict`).
With the ``heeds-feedback`` flag, violations named by a ``<feedback>`` block in the
conversation are dropped (see :mod:`adhere.testing._agent_feedback`).

Fallbacks when a role's tool is missing: reading uses the command tool
(``cat``); editing uses the edit tool, else a patch tool (``apply_patch``), else the
write tool (when the file's text is known), else the command tool (appending the line);
a skill without a skill tool is used by reading its ``SKILL.md`` when the conversation
says where it is. When nothing fits, the policy answers with text naming the missing
role, with no tool call, so every CLI's loop ends. The final answer never calls tools.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import Literal

from adhere.core import ToolCall
from adhere.testing._agent_conflict import (
    Directives,
    adjusted_violations,
    directives_for,
    parse_follow,
)
from adhere.testing._agent_context import (
    Turn,
    current_turn,
    file_lines,
    mentioned_file,
    resolve_path,
    working_directory,
)
from adhere.testing._agent_feedback import HEEDS_FEEDBACK, heeded_violations, request_text
from adhere.testing._agent_skills import choose_skill, skill_file
from adhere.testing._agent_text import (
    EMOJI,
    answer_text,
    looks_french,
    missing_text,
)
from adhere.testing._model_string import ModelStringError, PolicyOptions
from adhere.testing._registry import PolicyContext
from adhere.testing._tool_roles import Role, RoleTool, build_arguments, match_roles
from adhere.wire import Conversation, Reply, call_id

__all__ = [
    "BEHAVIOURS",
    "EDIT_LINE",
    "FORBIDDEN_COMMAND",
    "VIOLATIONS",
    "AgentPolicy",
    "AgentSettings",
    "make_agent",
    "plan",
]

BEHAVIOURS = ("read", "edit", "run", "skill", "answer")
VIOLATIONS = ("emoji", "wrong-language", "forbidden", "edit-without-read")
FORBIDDEN_COMMAND = "git reset --hard"
EDIT_LINE = "Edited by the scripted agent policy."
UNREAD = "(unknown text: the file was not read first)"

Action = Literal["read", "edit", "blind-edit", "run", "forbidden", "skill"]
_STEPS: dict[str, tuple[Action, ...]] = {
    "read": ("read",),
    "edit": ("read", "edit"),
    "run": ("run",),
    "skill": ("skill",),
    "answer": (),
}


@dataclass(frozen=True)
class AgentSettings:
    """What an ``agent:…`` model string asks for.

    Attributes:
        behaviour: One of :data:`BEHAVIOURS`.
        file: The file to read or edit; ``None`` picks it from the request.
        command: The command ``run`` runs.
        skill: The skill ``skill`` invokes; ``None`` picks it from the conversation.
        say: The final answer's text, replacing the behaviour's own.
        violations: Deliberate violations (:data:`VIOLATIONS`).
        follow: Instruction sources to obey, in precedence order (``follow=sp>user``).
        heeds_feedback: Drop the violations a feedback block in the conversation names.
    """

    behaviour: str = "answer"
    file: str | None = None
    command: str = "ls"
    skill: str | None = None
    say: str | None = None
    violations: frozenset[str] = frozenset()
    follow: tuple[str, ...] = ()
    heeds_feedback: bool = False


def plan(settings: AgentSettings) -> tuple[Action, ...]:
    """The tool steps of a behaviour, before its final answer."""
    steps = list(_STEPS[settings.behaviour])
    if "edit-without-read" in settings.violations:
        steps = ["blind-edit", "read"] if settings.behaviour == "edit" else ["blind-edit", *steps]
    if "forbidden" in settings.violations:
        steps.append("forbidden")
    return tuple(steps)


@dataclass(frozen=True)
class AgentPolicy:
    """Drives an agent CLI through a deterministic loop with the tools it offers."""

    settings: AgentSettings
    name: str = "agent"

    def respond(self, conversation: Conversation) -> Reply:
        """The next step of the behaviour for the current turn, or the final answer."""
        return _Step(self.settings, conversation).reply()


class _Step:
    """One reply: what the conversation so far says to do next."""

    def __init__(self, settings: AgentSettings, conversation: Conversation) -> None:
        if settings.heeds_feedback:
            violations = heeded_violations(settings.violations, conversation)
            settings = replace(settings, violations=violations)
        self.directives = Directives()
        if settings.follow:
            self.directives = directives_for(settings.follow, conversation)
            violations = adjusted_violations(settings.violations, self.directives)
            settings = replace(settings, violations=violations)
        self.settings = settings
        self.conversation = conversation
        self.turn: Turn = current_turn(conversation)
        self.roles = match_roles(conversation.tools)
        self.directory = working_directory(conversation)
        self.plan = plan(settings)
        asked = settings.file or mentioned_file(request_text(self.turn.request)) or "README.md"
        self.path = asked
        self.target = resolve_path(asked, self.directory)

    def reply(self) -> Reply:
        index = len(self.turn.steps)
        if index < len(self.plan):
            return self._act(self.plan[index])
        return Reply(text=self._final())

    # -- tool steps ------------------------------------------------------------

    def _act(self, action: Action) -> Reply:
        if action == "read":
            return self._read(self.target, f"Reading {self.path}.")
        if action in ("edit", "blind-edit"):
            return self._edit(blind=action == "blind-edit")
        if action == "run":
            return self._run(self.settings.command, "run")
        if action == "forbidden":
            return self._run(FORBIDDEN_COMMAND, "run")
        return self._skill()

    def _read(self, target: str, text: str) -> Reply:
        found = self.roles.get("read")
        if found is not None:
            return self._call(found, {"path": target}, text)
        shell = self.roles.get("run")
        if shell is not None:
            return self._call(shell, {"command": f"cat {shlex.quote(target)}"}, text)
        return self._missing("read", f"read {self.path}")

    def _edit(self, *, blind: bool) -> Reply:
        lines = None if blind else self._read_lines()
        first = lines[0] if lines else None
        text = f"Editing {self.path}."
        found = self.roles.get("edit")
        if found is not None:
            old = first if first is not None else UNREAD
            values = {"path": self.target, "old": old, "new": f"{old}\n{EDIT_LINE}"}
            return self._call(found, values, text)
        patch = self.roles.get("patch")
        if patch is not None:
            return self._call(patch, {"input": self._patch(first)}, text)
        write = self.roles.get("write")
        if write is not None and lines:
            content = "\n".join([lines[0], EDIT_LINE, *lines[1:]]) + "\n"
            return self._call(write, {"path": self.target, "content": content}, text)
        shell = self.roles.get("run")
        if shell is not None:
            command = f"printf '%s\\n' {shlex.quote(EDIT_LINE)} >> {shlex.quote(self.target)}"
            return self._call(shell, {"command": command}, text)
        return self._missing("edit", f"edit {self.path}")

    def _patch(self, first: str | None) -> str:
        """An ``apply_patch`` envelope adding the line (after the first, when known)."""
        hunk = f"@@\n {first}\n+{EDIT_LINE}" if first is not None else f"@@\n+{EDIT_LINE}"
        return f"*** Begin Patch\n*** Update File: {self.path}\n{hunk}\n*** End Patch\n"

    def _run(self, command: str, role: Role) -> Reply:
        found = self.roles.get(role)
        if found is None:
            return self._missing(role, f"run `{command}`")
        return self._call(found, {"command": command}, f"Running `{command}`.")

    def _skill(self) -> Reply:
        name = self._skill_name()
        if name is None:
            return Reply(text="I could not use a skill: none was named or listed.")
        found = self.roles.get("skill")
        if found is not None:
            return self._call(found, {"skill": name}, f"Using the {name} skill.")
        location = skill_file(self.conversation, name)
        if location is not None and ("read" in self.roles or "run" in self.roles):
            return self._read(location, f"Using the {name} skill.")
        return self._missing("skill", f"use the {name} skill")

    def _skill_name(self) -> str | None:
        if self.settings.skill:
            return self.settings.skill
        return choose_skill(self.conversation, self.turn.request, self.conversation.tools)

    def _call(self, found: RoleTool, values: dict[str, str], text: str) -> Reply:
        arguments = build_arguments(found, values, directory=self.directory)
        call = ToolCall(id=call_id(self.conversation, 0), name=found.tool.name, arguments=arguments)
        return Reply(text=text, tool_calls=(call,))

    def _missing(self, role: str, what: str) -> Reply:
        return Reply(text=missing_text(role, what))

    # -- the final answer ------------------------------------------------------

    def _result_of(self, action: Action) -> str | None:
        """The text of the first tool result of the step that took ``action``."""
        for index, taken in enumerate(self.plan[: len(self.turn.results)]):
            if taken == action and self.turn.results[index]:
                return self.turn.results[index][0]
        return None

    def _read_lines(self) -> list[str] | None:
        result = self._result_of("read")
        return file_lines(result) if result is not None else None

    def _final(self) -> str:
        settings = self.settings
        wrong = "wrong-language" in settings.violations
        if settings.say is not None and not wrong:
            text = settings.say
        else:
            language = ("de" if looks_french(self.turn.request) else "fr") if wrong else "en"
            text = self._answer(self.directives.language or language)
        text = self.directives.shape(text)
        return text + EMOJI if "emoji" in settings.violations else text

    def _answer(self, language: str) -> str:
        behaviour = self.settings.behaviour
        forbidden = "forbidden" in self.settings.violations
        if behaviour == "read":
            lines = self._read_lines()
            line = next((item.strip() for item in lines or [] if item.strip()), "")
            kind = "read" if line else "read-empty"
            return answer_text(kind, language, forbidden=forbidden, path=self.path, line=line)
        if behaviour == "run":
            output = file_lines(self._result_of("run") or "")
            line = next((item.strip() for item in output if item.strip()), "")
            kind = "run" if line else "run-empty"
            command = self.settings.command
            return answer_text(kind, language, forbidden=forbidden, command=command, line=line)
        if behaviour == "skill":
            skill = self._skill_name() or "?"
            return answer_text("skill", language, forbidden=forbidden, skill=skill)
        if behaviour == "edit":
            return answer_text("edit", language, forbidden=forbidden, path=self.path)
        return answer_text("answer", language, forbidden=forbidden)


def make_agent(options: PolicyOptions, context: PolicyContext) -> AgentPolicy:
    """The ``agent`` policy factory (reads the options and flags it accepts)."""
    behaviour = options.text("name", "answer")
    flags = {flag for flag in VIOLATIONS if options.flag(flag)}
    if behaviour in VIOLATIONS:
        flags.add(behaviour)
        behaviour = "answer"
    if behaviour not in BEHAVIOURS:
        raise ModelStringError(
            f"unknown agent behaviour {behaviour!r} (known: {', '.join(BEHAVIOURS)}; "
            f"violations: {', '.join(VIOLATIONS)})"
        )
    file = options.text("file", "")
    skill = options.text("skill", "")
    say = options.text("say", "")
    follow = options.text("follow", "")
    return AgentPolicy(
        AgentSettings(
            behaviour=behaviour,
            file=file or None,
            command=options.text("command", "ls"),
            skill=skill or None,
            say=say or None,
            violations=frozenset(flags),
            follow=parse_follow(follow) if follow else (),
            heeds_feedback=options.flag(HEEDS_FEEDBACK),
        )
    )
