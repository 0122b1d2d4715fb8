"""Scripted turns: YAML files of steps, and the ``script`` policy that plays them.

A script file holds a list of steps (or a mapping with a ``steps`` list). Each step
has ``text``, a ``tool_call`` (``{name, arguments}``) or a ``tool_calls`` list, or
text and calls together, plus optional ``reasoning``. The reply at assistant turn
``k`` (the number of assistant messages already in the conversation) is step ``k``.
Past the end, the policy answers the last step's text without tool calls (or
``End of script.`` when that step had no text), so tool-driving scripts always stop.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from adhere.core import ToolCall
from adhere.errors import SpecError
from adhere.wire import Conversation, Reply, call_id

__all__ = [
    "END_OF_SCRIPT",
    "ScriptPolicy",
    "ScriptStep",
    "ScriptedCall",
    "load_scripts",
    "parse_script",
]

END_OF_SCRIPT = "End of script."
_STEP_KEYS = ("reasoning", "text", "tool_call", "tool_calls")


@dataclass(frozen=True)
class ScriptedCall:
    """A tool call a script makes: tool name and arguments (ids are made per reply)."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScriptStep:
    """One scripted assistant turn."""

    text: str = ""
    tool_calls: tuple[ScriptedCall, ...] = ()
    reasoning: str = ""


def parse_script(data: Any, *, source: str = "<script>") -> list[ScriptStep]:
    """Steps from decoded YAML: a list of steps or ``{steps: [...]}``.

    Raises:
        SpecError: Naming ``source`` and the field path of the first problem.
    """
    if isinstance(data, dict):
        extra = sorted(set(data) - {"steps"})
        if extra:
            raise SpecError(f"unknown key(s) {extra}; expected 'steps'", file=source)
        data = data.get("steps")
        prefix = "steps"
    else:
        prefix = ""
    if not isinstance(data, list) or not data:
        raise SpecError("expected a non-empty list of steps", file=source, field=prefix or None)
    return [_step(raw, source, f"{prefix}[{index}]") for index, raw in enumerate(data)]


def load_scripts(paths: Iterable[Path]) -> dict[str, list[ScriptStep]]:
    """Load script files; each script is named after its file's stem.

    A directory stands for its ``*.yaml`` and ``*.yml`` files.

    Raises:
        SpecError: A file is missing, is not valid YAML, holds a bad step, or two
            files share a name.
    """
    scripts: dict[str, list[ScriptStep]] = {}
    origin: dict[str, Path] = {}
    for path in _expand(paths):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(f"cannot read script: {exc.strerror or exc}", file=str(path)) from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise SpecError(f"invalid YAML: {exc}", file=str(path)) from None
        name = path.stem
        if name in scripts:
            raise SpecError(f"script {name!r} is also defined in {origin[name]}", file=str(path))
        scripts[name] = parse_script(data, source=str(path))
        origin[name] = path
    return scripts


class ScriptPolicy:
    """Plays a script: step ``k`` answers assistant turn ``k`` (see the module docstring)."""

    name = "script"

    def __init__(self, script: str, steps: Sequence[ScriptStep]) -> None:
        if not steps:
            raise ValueError(f"script {script!r} has no steps")
        self.script = script
        self.steps = tuple(steps)

    def respond(self, conversation: Conversation) -> Reply:
        """The step for the conversation's assistant turn."""
        turn = conversation.assistant_turns
        if turn >= len(self.steps):
            return Reply(text=self.steps[-1].text or END_OF_SCRIPT)
        step = self.steps[turn]
        calls = tuple(
            ToolCall(
                id=call_id(conversation, index), name=call.name, arguments=dict(call.arguments)
            )
            for index, call in enumerate(step.tool_calls)
        )
        return Reply(text=step.text, tool_calls=calls, reasoning=step.reasoning)


def _expand(paths: Iterable[Path]) -> Iterable[Path]:
    for path in paths:
        path = Path(path)
        if path.is_dir():
            yield from sorted([*path.glob("*.yaml"), *path.glob("*.yml")])
        else:
            yield path


def _step(raw: Any, source: str, where: str) -> ScriptStep:
    if not isinstance(raw, dict):
        raise SpecError("a step must be a mapping", file=source, field=where)
    unknown = sorted(str(key) for key in raw if key not in _STEP_KEYS)
    if unknown:
        raise SpecError(
            f"unknown key(s) {unknown}; expected some of {list(_STEP_KEYS)}",
            file=source,
            field=where,
        )
    if "tool_call" in raw and "tool_calls" in raw:
        raise SpecError("give 'tool_call' or 'tool_calls', not both", file=source, field=where)
    text = _string(raw.get("text", ""), source, f"{where}.text")
    reasoning = _string(raw.get("reasoning", ""), source, f"{where}.reasoning")
    calls: tuple[ScriptedCall, ...]
    if "tool_call" in raw:
        calls = (_call(raw["tool_call"], source, f"{where}.tool_call"),)
    else:
        listed = raw.get("tool_calls", [])
        if not isinstance(listed, list):
            raise SpecError("expected a list", file=source, field=f"{where}.tool_calls")
        calls = tuple(
            _call(item, source, f"{where}.tool_calls[{index}]") for index, item in enumerate(listed)
        )
    if not text and not calls:
        raise SpecError("a step needs 'text' or a tool call", file=source, field=where)
    return ScriptStep(text=text, tool_calls=calls, reasoning=reasoning)


def _call(raw: Any, source: str, where: str) -> ScriptedCall:
    if not isinstance(raw, dict):
        raise SpecError("a tool call must be a mapping", file=source, field=where)
    unknown = sorted(str(key) for key in raw if key not in ("name", "arguments"))
    if unknown:
        raise SpecError(
            f"unknown key(s) {unknown}; expected 'name' and 'arguments'", file=source, field=where
        )
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise SpecError("expected a non-empty tool name", file=source, field=f"{where}.name")
    arguments = raw.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict) or not all(isinstance(key, str) for key in arguments):
        raise SpecError(
            "expected a mapping with string keys", file=source, field=f"{where}.arguments"
        )
    try:
        json.dumps(arguments)
    except (TypeError, ValueError):
        raise SpecError(
            "arguments must be plain JSON values (quote dates and the like)",
            file=source,
            field=f"{where}.arguments",
        ) from None
    return ScriptedCall(name=name, arguments=MappingProxyType(dict(arguments)))


def _string(value: Any, source: str, where: str) -> str:
    if not isinstance(value, str):
        raise SpecError(f"expected a string, got {type(value).__name__}", file=source, field=where)
    return value
