"""The Gemini wire format, request side: neutral messages and tools as a body.

Used by the recording proxy to send a translated call to a Gemini endpoint:

- the system prompt is ``systemInstruction``;
- user messages are ``user`` contents; assistant messages ``model`` contents with a
  text part (reasoning is not sent back) and one ``functionCall`` part per call,
  carrying the call's id; consecutive tool results one ``user`` content of
  ``functionResponse`` parts, each named after its call (Gemini matches by name) and
  carrying ``{"output": text}``;
- tools are ``functionDeclarations`` with ``parametersJsonSchema`` (the schema as
  the scaffold sent it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adhere.core import ChatMessage, ToolSpec
from adhere.wire._exchange import FREEFORM_KEY

__all__ = ["encode_gemini_contents", "encode_gemini_tools"]


def encode_gemini_contents(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Neutral messages as Gemini contents (see the module docstring)."""
    names: dict[str, str] = {}
    contents: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []

    def flush() -> None:
        if results:
            contents.append({"role": "user", "parts": list(results)})
            results.clear()

    for message in messages:
        if message.role == "tool":
            ident = message.tool_call_id or ""
            results.append(
                {
                    "functionResponse": {
                        "id": ident,
                        "name": names.get(ident, "tool"),
                        "response": {"output": message.content},
                    }
                }
            )
            continue
        flush()
        if message.role == "assistant":
            parts: list[dict[str, Any]] = []
            if message.content or not message.tool_calls:
                parts.append({"text": message.content})
            for call in message.tool_calls:
                names[call.id] = call.name
                parts.append(
                    {"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
                )
            contents.append({"role": "model", "parts": parts})
        else:  # user, or a system message mid-conversation
            contents.append({"role": "user", "parts": [{"text": message.content}]})
    flush()
    return contents


def encode_gemini_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as one ``functionDeclarations`` tool (none when there are no tools)."""
    if not tools:
        return []
    declarations = [
        {
            "name": tool.name,
            "description": tool.description,
            "parametersJsonSchema": {k: v for k, v in tool.parameters.items() if k != FREEFORM_KEY},
        }
        for tool in tools
    ]
    return [{"functionDeclarations": declarations}]
