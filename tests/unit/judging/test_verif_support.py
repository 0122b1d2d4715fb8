"""Builders for hand-made trajectories in the shapes the real scaffolds produce.

Imported by the verifier tests; holds no tests itself.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from adhere.core import (
    ChatMessage,
    Check,
    Instance,
    ToolCall,
    ToolSpec,
    Trajectory,
    Verdict,
    VerifierRef,
)
from adhere.judging._verify import VerifyContext
from adhere.judging._verify_run import run_check

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = "/root/.cache/adhere/work/59aad89a31a8ebec6b23/work"
"""A workspace root like the one the local runner uses."""

_ids = itertools.count(1)


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


S = {"type": "string"}
CLAUDE_TOOLS = [
    ToolSpec(
        name="Read", parameters=obj({"file_path": S, "limit": {"type": "integer"}}, ["file_path"])
    ),
    ToolSpec(
        name="Edit",
        parameters=obj(
            {"file_path": S, "old_string": S, "new_string": S, "replace_all": {"type": "boolean"}},
            ["file_path", "old_string", "new_string"],
        ),
    ),
    ToolSpec(
        name="Write", parameters=obj({"file_path": S, "content": S}, ["file_path", "content"])
    ),
    ToolSpec(
        name="Bash", parameters=obj({"command": S, "timeout": {"type": "number"}}, ["command"])
    ),
    ToolSpec(name="Skill", parameters=obj({"skill": S, "args": S}, ["skill"])),
    ToolSpec(name="Grep", parameters=obj({"pattern": S, "path": S}, ["pattern"])),
]
KILO_TOOLS = [
    ToolSpec(name="read", parameters=obj({"filePath": S}, ["filePath"])),
    ToolSpec(
        name="edit",
        parameters=obj(
            {"filePath": S, "oldString": S, "newString": S}, ["filePath", "oldString", "newString"]
        ),
    ),
    ToolSpec(name="write", parameters=obj({"content": S, "filePath": S}, ["content", "filePath"])),
    ToolSpec(name="bash", parameters=obj({"command": S, "workdir": S}, ["command"])),
    ToolSpec(name="skill", parameters=obj({"name": S}, ["name"])),
]
CODEX_TOOLS = [
    ToolSpec(
        name="exec_command",
        parameters=obj({"cmd": {"type": "array", "items": S}, "workdir": S}, ["cmd"]),
    ),
    ToolSpec(name="apply_patch", parameters=obj({"input": S}, ["input"])),
]


def call(tool: str, /, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"call_{next(_ids)}", name=tool, arguments=arguments)


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def say(text: str = "", *calls: ToolCall, reasoning: str = "") -> ChatMessage:
    return ChatMessage(role="assistant", content=text, tool_calls=calls, reasoning=reasoning)


def result(of: ToolCall, text: str = "ok") -> ChatMessage:
    return ChatMessage(role="tool", content=text, tool_call_id=of.id, name=of.name)


def act(text: str, tool: str, /, **arguments: Any) -> list[ChatMessage]:
    """An assistant message calling one tool, and the tool's result."""
    made = call(tool, **arguments)
    return [say(text, made), result(made)]


def traj(
    *messages: ChatMessage | list[ChatMessage],
    tools: list[ToolSpec] | None = None,
    files: dict[str, str] | None = None,
    meta: dict[str, Any] | None = None,
    subagents: list[Trajectory] | None = None,
) -> Trajectory:
    flat: list[ChatMessage] = []
    for item in messages:
        flat.extend(item if isinstance(item, list) else [item])
    return Trajectory(
        messages=flat,
        tools=CLAUDE_TOOLS if tools is None else tools,
        files=files or {},
        meta=meta or {},
        subagents=subagents or [],
    )


def instance(
    turns: tuple[str, ...] = ("Add a total_value function to inventory.py.",),
    files: dict[str, str] | None = None,
    **metadata: Any,
) -> Instance:
    return Instance(
        id="i-1",
        suite="octobench",
        workspace={"files": files if files is not None else {"inventory.py": "x = 1\n"}},
        turns=list(turns),
        checks=[Check(id="c", source="SP", description="d")],
        metadata=metadata,
    )


def ctx(trajectory: Trajectory, inst: Instance | None = None) -> VerifyContext:
    return VerifyContext.build(inst or instance(), trajectory)


def check(name: str, **params: Any) -> Check:
    return Check(
        id=f"chk_{name}",
        source="SP",
        description="d",
        verifier=VerifierRef(name=name, params=params),
    )


def verdict(name: str, context: VerifyContext, **params: Any) -> Verdict:
    """Run verifier ``name`` through the registry, as the pipeline does."""
    return run_check(check(name, **params), context)


def fixture_trajectory(name: str) -> Trajectory:
    return Trajectory.model_validate_json((FIXTURES / name).read_text(encoding="utf-8"))


def fixture_instance() -> Instance:
    data = json.loads((FIXTURES / "instance_claude_md_tests.json").read_text(encoding="utf-8"))
    return Instance.model_validate(data)
