"""The OpenAI Responses wire format, request side: neutral messages and tools as a body.

Used by the recording proxy to send a translated call to a Responses endpoint. The
conversation goes whole in ``input`` (``store`` off, no ``previous_response_id``):

- the system prompt is ``instructions``;
- a user message is a ``message`` item with ``input_text``; an assistant message its
  ``output_text`` ``message`` item followed by one ``function_call`` item per call (a
  free-form tool's call is a ``custom_tool_call``); a tool result a
  ``function_call_output`` (``custom_tool_call_output`` for free-form tools);
- free-form tools (marked with :data:`~adhere.wire.FREEFORM_KEY`) go out as ``custom``
  tools with their format, the others as ``function`` tools.

Reasoning is not sent back (it would need the encrypted reasoning item).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from adhere.core import ChatMessage, ToolSpec
from adhere.wire._exchange import FREEFORM_KEY, freeform_input, is_freeform

__all__ = ["encode_responses_input", "encode_responses_tools"]


def encode_responses_input(
    messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]
) -> list[dict[str, Any]]:
    """Neutral messages as Responses input items (see the module docstring)."""
    freeform = {tool.name for tool in tools if is_freeform(tool)}
    custom_calls: set[str] = set()
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "user":
            items.append(
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": message.content}],
                }
            )
        elif message.role == "assistant":
            if message.content or not message.tool_calls:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": message.content}],
                    }
                )
            for call in message.tool_calls:
                if call.name in freeform:
                    custom_calls.add(call.id)
                    items.append(
                        {
                            "type": "custom_tool_call",
                            "call_id": call.id,
                            "name": call.name,
                            "input": freeform_input(call),
                        }
                    )
                else:
                    items.append(
                        {
                            "type": "function_call",
                            "call_id": call.id,
                            "name": call.name,
                            "arguments": json.dumps(call.arguments, ensure_ascii=False),
                        }
                    )
        elif message.role == "tool":
            kind = (
                "custom_tool_call_output"
                if message.tool_call_id in custom_calls
                else "function_call_output"
            )
            items.append(
                {"type": kind, "call_id": message.tool_call_id or "", "output": message.content}
            )
        else:  # a system message mid-conversation
            items.append(
                {
                    "type": "message",
                    "role": "developer",
                    "content": [{"type": "input_text", "text": message.content}],
                }
            )
    return items


def encode_responses_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as ``function`` tools, free-form ones as ``custom`` tools."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        if is_freeform(tool):
            out.append(
                {
                    "type": "custom",
                    "name": tool.name,
                    "description": tool.description,
                    "format": tool.parameters[FREEFORM_KEY],
                }
            )
        else:
            out.append(
                {
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                }
            )
    return out
