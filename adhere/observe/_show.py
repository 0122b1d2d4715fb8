"""A readable terminal view of a normalized trajectory, with its source tags."""

from __future__ import annotations

import json
from collections.abc import Iterator

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from adhere.core import SYSTEM_INDEX, TOOLS_INDEX, Source, SourceSpan, Trajectory

STYLES: dict[Source, str] = {
    Source.SYSTEM_PROMPT: "bold blue",
    Source.SYSTEM_REMINDER: "magenta",
    Source.USER_QUERY: "bold green",
    Source.AGENTS_MD: "bold yellow",
    Source.SKILL_MD: "bold cyan",
    Source.MEMORY: "bold red",
    Source.TOOL_SCHEMA: "dim cyan",
}
_LIMIT = 2000


def _tagged(text: str, spans: list[SourceSpan], limit: int) -> Text:
    """``text`` with each tagged span styled and labelled; long texts cut in the middle."""
    out = Text(text)
    for span in spans:
        style = STYLES.get(span.source, "bold")
        out.stylize(style, span.start, span.end)
    if len(text) > limit:
        keep = limit // 2
        out = Text.assemble(
            out[:keep], Text(f"\n… {len(text) - 2 * keep} characters …\n", "dim"), out[-keep:]
        )
    if spans:
        labels = ", ".join(
            f"{s.source.value}{f' ({s.label})' if s.label else ''} @{s.start}-{s.end}"
            for s in spans
        )
        out = Text.assemble(Text(f"[{labels}]\n", "dim italic"), out)
    return out


def _legend() -> Text:
    return Text.assemble(
        "sources: ", *[(f"{source.value} ", style) for source, style in STYLES.items()]
    )


def render_trajectory(trajectory: Trajectory, *, limit: int = _LIMIT) -> Iterator[RenderableType]:
    """Panels for the meta, system prompt, tools and every message, in order."""
    by_message: dict[int, list[SourceSpan]] = {}
    for span in trajectory.sources:
        by_message.setdefault(span.message_index, []).append(span)
    meta = {k: v for k, v in trajectory.meta.items() if k != "final_text"}
    yield Panel(Text(json.dumps(meta, ensure_ascii=False, indent=1, default=str)), title="meta")
    yield _legend()
    yield Panel(
        _tagged(trajectory.system, by_message.get(SYSTEM_INDEX, []), limit), title="system prompt"
    )
    tool_spans = {s.start for s in by_message.get(TOOLS_INDEX, [])}
    tools = Text()
    for position, tool in enumerate(trajectory.tools):
        marker = "●" if position in tool_spans else " "
        tools.append(f"{marker} {tool.name}", STYLES[Source.TOOL_SCHEMA])
        tools.append(f" — {tool.description.splitlines()[0][:100] if tool.description else ''}\n")
    yield Panel(tools or Text("(none)", "dim"), title=f"tools ({len(trajectory.tools)})")
    turn = 0
    for index, message in enumerate(trajectory.messages):
        parts: list[RenderableType] = []
        if message.role == "assistant":
            turn += 1
            title = f"[{index}] assistant · turn {turn}"
            if message.reasoning:
                parts.append(Text(f"(reasoning) {message.reasoning[:limit]}", "dim italic"))
            if message.content:
                parts.append(Text(message.content[:limit]))
            for call in message.tool_calls:
                args = json.dumps(call.arguments, ensure_ascii=False)
                parts.append(Text(f"→ {call.name}({args[:limit]})  [{call.id}]", "bold"))
        elif message.role == "tool":
            title = f"[{index}] tool result · {message.name or '?'}  [{message.tool_call_id}]"
            parts.append(Text(message.content[:limit], "dim"))
        else:
            title = f"[{index}] {message.role}"
            parts.append(_tagged(message.content, by_message.get(index, []), limit))
        yield Panel(Group(*parts), title=title, title_align="left")
    for n, sub in enumerate(trajectory.subagents, start=1):
        yield Text(
            f"sub-conversation {n}: {len(sub.messages)} messages, calls {sub.meta.get('calls')}",
            "dim",
        )
    if trajectory.files:
        yield Panel(Text("\n".join(sorted(trajectory.files))), title="files created or changed")
