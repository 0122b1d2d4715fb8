"""Rendering a trajectory as the plain-text record a judge reads.

The record holds, in order: a short summary and a legend of the instruction sources
found; the system prompt; the tools offered (schemas trimmed); every message, with
assistant turns numbered ``A0, A1, …`` (reasoning, text and tool calls with their
arguments) and tool results (already cut by the normalizer); the files the trial
created or changed (trimmed) and the files it deleted; and the other conversations
of the trial (sub-agents, auxiliary calls), trimmed, outside the turn numbering.

Tagged spans (:class:`~adhere.spec.SourceSpan`) are wrapped where they occur:
``⟦AgentsMd: CLAUDE.md⟧ … ⟦/AgentsMd⟧``; tags nest when spans do. Tool schemas carry
their tag on the tool's heading.

Only the system prompt and messages are shown whole: they are what the model saw and
the normalizer has already cut long tool outputs and arguments. Everything else is
trimmed to :class:`RenderLimits`, keeping the head and the tail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from adhere.core import SYSTEM_INDEX, TOOLS_INDEX, ChatMessage, SourceSpan, ToolSpec, Trajectory

__all__ = ["RenderLimits", "guard_markers", "render_transcript", "tag_text", "trim"]

_MARKER_LINE = re.compile(r"^=====", re.MULTILINE)


@dataclass(frozen=True)
class RenderLimits:
    """How much of the less central parts of a trajectory a judge prompt shows.

    Attributes:
        tool_description_chars: Per tool, characters of its description.
        tool_parameters_chars: Per tool, characters of its JSON parameter schema.
        file_chars: Per changed file, characters shown.
        files_total_chars: All changed files together; the rest are only named.
        subagent_chars: Per other conversation (sub-agent, auxiliary call).
        subagent_message_chars: Per message inside another conversation.
    """

    tool_description_chars: int = 1200
    tool_parameters_chars: int = 800
    file_chars: int = 4000
    files_total_chars: int = 24000
    subagent_chars: int = 6000
    subagent_message_chars: int = 600


def trim(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, head and tail kept, the cut marked."""
    if len(text) <= limit:
        return text
    head = max(limit * 2 // 3, 0)
    tail = max(limit - head, 0)
    cut = len(text) - head - tail
    end = text[len(text) - tail :] if tail else ""
    return f"{text[:head]}\n[… {cut} characters trimmed …]\n{end}"


def guard_markers(text: str) -> str:
    """Defuse lines that would look like the prompt's own section markers."""
    return _MARKER_LINE.sub("= ====", text)


def tag_text(text: str, spans: Iterable[SourceSpan]) -> str:
    """``text`` with each span wrapped in ``⟦Source: label⟧ … ⟦/Source⟧`` markers.

    Offsets are clamped to the text; empty spans are skipped. At one position closing
    tags come before opening ones, inner spans close first and outer spans open
    first, so nested spans give nested tags.
    """
    events: list[tuple[int, int, int, str]] = []
    for span in spans:
        start, end = min(span.start, len(text)), min(span.end, len(text))
        if end <= start:
            continue
        label = f": {span.label}" if span.label else ""
        events.append((start, 1, start - end, f"⟦{span.source.value}{label}⟧"))
        events.append((end, 0, end - start, f"⟦/{span.source.value}⟧"))
    if not events:
        return text
    events.sort()
    out: list[str] = []
    cursor = 0
    for position, _, _, marker in events:
        out.append(text[cursor:position])
        out.append(marker)
        cursor = position
    out.append(text[cursor:])
    return "".join(out)


def render_transcript(trajectory: Trajectory, limits: RenderLimits | None = None) -> str:
    """The judge's view of ``trajectory`` as text (see the module docstring)."""
    limits = limits or RenderLimits()
    spans_at: dict[int, list[SourceSpan]] = {}
    for span in trajectory.sources:
        spans_at.setdefault(span.message_index, []).append(span)
    parts = [_summary(trajectory), _legend(trajectory.sources)]
    if trajectory.system:
        system = tag_text(trajectory.system, spans_at.get(SYSTEM_INDEX, []))
        parts.append(f"## System prompt\n\n{system}")
    else:
        parts.append("## System prompt\n\n(none)")
    if trajectory.tools:
        parts.append(_tools(trajectory.tools, spans_at.get(TOOLS_INDEX, []), limits))
    parts.append(_conversation(trajectory.messages, spans_at))
    parts.append(_files(trajectory, limits))
    if trajectory.subagents:
        parts.append(_subagents(trajectory.subagents, limits))
    return guard_markers("\n\n".join(parts))


def _summary(trajectory: Trajectory) -> str:
    turns = len(trajectory.assistant_turns())
    numbering = f" (A0–A{turns - 1})" if turns > 1 else " (A0)" if turns == 1 else ""
    return (
        f"Session summary: messages: {len(trajectory.messages)}; "
        f"assistant turns: {turns}{numbering}; tools offered: {len(trajectory.tools)}; "
        f"files created or changed: {len(trajectory.files)}; "
        f"other conversations: {len(trajectory.subagents)}."
    )


def _legend(spans: Sequence[SourceSpan]) -> str:
    if not spans:
        return "Instruction sources tagged: none."
    counts: dict[str, int] = {}
    for span in spans:
        if span.message_index == TOOLS_INDEX:
            where = "the tool list"
        elif span.message_index == SYSTEM_INDEX:
            where = "the system prompt"
        else:
            where = f"message {span.message_index}"
        label = f" ({span.label})" if span.label and span.message_index != TOOLS_INDEX else ""
        key = f"{span.source.value}{label} in {where}"
        counts[key] = counts.get(key, 0) + 1
    lines = [f"- {key}" + (f" ×{n}" if n > 1 else "") for key, n in counts.items()]
    return "Instruction sources tagged:\n" + "\n".join(lines)


def _tools(tools: Sequence[ToolSpec], spans: Sequence[SourceSpan], limits: RenderLimits) -> str:
    tags: dict[int, list[str]] = {}
    for span in spans:
        label = f": {span.label}" if span.label else ""
        tags.setdefault(span.start, []).append(f"⟦{span.source.value}{label}⟧")
    lines = ["## Tools offered"]
    for position, tool in enumerate(tools):
        tag = " " + " ".join(tags[position]) if position in tags else ""
        parameters = json.dumps(tool.parameters, ensure_ascii=False, sort_keys=True)
        lines.append(
            f"### Tool {position}: {tool.name}{tag}\n"
            f"Description: {trim(tool.description, limits.tool_description_chars) or '(none)'}\n"
            f"Parameters: {trim(parameters, limits.tool_parameters_chars)}"
        )
    return "\n\n".join(lines)


def _conversation(messages: Sequence[ChatMessage], spans_at: dict[int, list[SourceSpan]]) -> str:
    blocks = ["## Conversation"]
    turn = 0
    for index, message in enumerate(messages):
        content = tag_text(message.content, spans_at.get(index, []))
        if message.role == "assistant":
            blocks.append(_assistant(index, turn, message, content))
            turn += 1
        elif message.role == "tool":
            name = message.name or "unknown tool"
            call = f", call {message.tool_call_id}" if message.tool_call_id else ""
            blocks.append(f"### message {index} · tool result of {name}{call}\n{content}")
        else:
            blocks.append(f"### message {index} · {message.role}\n{content}")
    if len(blocks) == 1:
        blocks.append("(no messages)")
    return "\n\n".join(blocks)


def _assistant(index: int, turn: int, message: ChatMessage, content: str) -> str:
    lines = [f"### message {index} · assistant turn A{turn}"]
    if message.reasoning:
        lines.append(f"[reasoning]\n{message.reasoning}")
    if content:
        lines.append(f"[text]\n{content}")
    for call in message.tool_calls:
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        lines.append(f"[tool call {call.name}, id {call.id}]\n{arguments}")
    if len(lines) == 1:
        lines.append("(empty turn)")
    return "\n".join(lines)


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    return "`" * max(3, longest + 1)


def _files(trajectory: Trajectory, limits: RenderLimits) -> str:
    blocks = ["## Files created or changed by the agent"]
    budget = limits.files_total_chars
    left_out: list[str] = []
    for path in sorted(trajectory.files):
        text = trajectory.files[path]
        if budget <= 0:
            left_out.append(path)
            continue
        shown = trim(text, min(limits.file_chars, budget))
        budget -= len(shown)
        fence = _fence(shown)
        body = shown.rstrip("\n")
        blocks.append(f"### {path} ({len(text)} characters)\n{fence}\n{body}\n{fence}")
    if not trajectory.files:
        blocks.append("(none)")
    if left_out:
        blocks.append("Not shown (space): " + ", ".join(left_out))
    deleted = trajectory.meta.get("deleted_files")
    if isinstance(deleted, list) and deleted:
        blocks.append("Deleted by the agent: " + ", ".join(str(p) for p in deleted))
    return "\n\n".join(blocks)


def _subagents(subagents: Sequence[Trajectory], limits: RenderLimits) -> str:
    blocks = [
        "## Other conversations of the trial (sub-agents, auxiliary calls)\n"
        "They are not numbered as assistant turns; cite the main conversation's turns."
    ]
    for label, trajectory in _flatten(subagents, ""):
        lines = [f"### Other conversation {label}"]
        for message in trajectory.messages:
            text = trim(message.content, limits.subagent_message_chars)
            calls = "".join(
                f"\n[tool call {c.name}] {json.dumps(c.arguments, ensure_ascii=False)}"
                for c in message.tool_calls
            )
            lines.append(f"[{message.role}] {text}{trim(calls, limits.subagent_message_chars)}")
        blocks.append(trim("\n".join(lines), limits.subagent_chars))
    return "\n\n".join(blocks)


def _flatten(subagents: Sequence[Trajectory], prefix: str) -> list[tuple[str, Trajectory]]:
    out: list[tuple[str, Trajectory]] = []
    for position, sub in enumerate(subagents, start=1):
        label = f"{prefix}{position}"
        out.append((label, sub))
        out.extend(_flatten(sub.subagents, f"{label}."))
    return out
