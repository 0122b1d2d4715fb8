"""Decoding Responses, Gemini and newer Anthropic requests into the neutral form."""

import pytest

from adhere.core._chat import ChatMessage, ToolCall
from adhere.testing._routing import resolve
from adhere.wire import Target, WireFormatError
from adhere.wire._exchange import FREEFORM_KEY
from adhere.wire.anthropic import AnthropicCodec
from adhere.wire.gemini import GeminiCodec
from adhere.wire.openai_responses import ResponsesCodec

GEMINI = Target(model="m", stream=True, sse=True)


def test_responses_items_fold_into_turns():
    body = {
        "model": "m",
        "instructions": "Base.",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "D"}],
            },
            {"role": "user", "content": "Fix it"},
            {
                "type": "reasoning",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "r"}],
            },
            {"type": "function_call", "call_id": "a", "name": "shell", "arguments": '{"cmd":"ls"}'},
            {"type": "custom_tool_call", "call_id": "b", "name": "apply_patch", "input": "P"},
            {
                "type": "function_call_output",
                "call_id": "a",
                "output": [{"type": "input_text", "text": "ok"}],
            },
            {"type": "custom_tool_call_output", "call_id": "b", "output": "done"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Fixed."}],
            },
        ],
        "tools": [
            {"type": "function", "name": "shell", "parameters": {"type": "object"}},
            {
                "type": "custom",
                "name": "apply_patch",
                "description": "Patch.",
                "format": {"type": "grammar"},
            },
            {"type": "web_search"},
            {"type": "namespace", "name": "ns", "tools": []},
        ],
        "max_output_tokens": 100,
    }
    decoded = ResponsesCodec().decode(body)
    assert decoded.system == "Base.\n\nD"
    assert decoded.messages == (
        ChatMessage(role="user", content="Fix it"),
        ChatMessage(
            role="assistant",
            reasoning="r",
            tool_calls=(
                ToolCall(id="a", name="shell", arguments={"cmd": "ls"}),
                ToolCall(id="b", name="apply_patch", arguments={"input": "P"}),
            ),
        ),
        ChatMessage(role="tool", content="ok", tool_call_id="a"),
        ChatMessage(role="tool", content="done", tool_call_id="b"),
        ChatMessage(role="assistant", content="Fixed."),
    )
    shell, patch = decoded.tools
    assert shell.name == "shell" and FREEFORM_KEY not in shell.parameters
    assert patch.description == "Patch."
    assert patch.parameters[FREEFORM_KEY] == {"type": "grammar"}
    assert patch.parameters["required"] == ["input"]


def test_responses_tools_in_namespaces_and_additional_tools_items():
    body = {
        "model": "m",
        "input": [
            {
                "type": "additional_tools",
                "role": "developer",
                "tools": [
                    {
                        "type": "namespace",
                        "name": "functions",
                        "tools": [{"type": "custom", "name": "exec"}, {"name": "wait"}],
                    }
                ],
            },
            {"role": "user", "content": "hi"},
        ],
        "tools": [{"type": "namespace", "name": "n", "tools": [{"type": "function", "name": "f"}]}],
    }
    decoded = ResponsesCodec().decode(body)
    assert [tool.name for tool in decoded.tools] == ["f", "exec", "wait"]
    assert FREEFORM_KEY in decoded.tools[1].parameters
    assert decoded.messages == (ChatMessage(role="user", content="hi"),)


def test_responses_plain_string_input():
    decoded = ResponsesCodec().decode({"model": "m", "input": "hi", "stream": True})
    assert decoded.messages == (ChatMessage(role="user", content="hi"),) and decoded.stream


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"input": "x"}, "model"),
        ({"model": "m"}, "input"),
        ({"model": "m", "input": []}, "input"),
        ({"model": "m", "input": [{"type": "item_reference", "id": "x"}]}, "input[0].type"),
        (
            {"model": "m", "input": [{"type": "additional_tools", "tools": [{"name": 5}]}]},
            "input[0].tools[0].name",
        ),
        ({"model": "m", "input": [{"role": "robot", "content": "x"}]}, "input[0].role"),
        ({"model": "m", "input": [{"type": "function_call", "name": "f"}]}, "input[0].call_id"),
        (
            {"model": "m", "input": [{"role": "user", "content": [{"type": "input_image"}]}]},
            "input[0].content[0].type",
        ),
        ({"model": "m", "input": "x", "max_output_tokens": 0}, "max_output_tokens"),
        ({"model": "m", "input": "x", "tools": [{"type": "function"}]}, "tools[0].name"),
    ],
)
def test_responses_errors_name_the_field(body, field):
    with pytest.raises(WireFormatError) as caught:
        ResponsesCodec().decode(body)
    assert caught.value.field == field


def test_gemini_contents_calls_and_responses():
    body = {
        "systemInstruction": {"role": "system", "parts": [{"text": "S"}]},
        "contents": [
            {"role": "user", "parts": [{"text": "a"}, {"text": "b"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "think", "thought": True},
                    {"text": "Calling."},
                    {"functionCall": {"name": "read", "args": {"p": 1}}, "thoughtSignature": "x"},
                    {"functionCall": {"name": "ls"}},
                    {"functionCall": {"name": "read", "args": {"p": 2}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "ls", "response": {"output": "files"}}},
                    {"functionResponse": {"name": "read", "response": {"output": "one"}}},
                    {"functionResponse": {"id": "rand-1", "name": "read", "response": {"n": 2}}},
                    {"text": "and then?"},
                ],
            },
            {"role": "model", "parts": [{"functionCall": {"id": "call_z", "name": "x"}}]},
            {"role": "function", "parts": [{"functionResponse": {"name": "y", "response": "s"}}]},
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "read",
                        "parameters": {"type": "OBJECT", "properties": {"p": {"type": "INTEGER"}}},
                    },
                    {"name": "ls", "parametersJsonSchema": {"type": "object", "properties": {}}},
                    {"name": "noop"},
                ]
            },
            {"codeExecution": {}},
        ],
        "generationConfig": {"maxOutputTokens": 10},
    }
    decoded = GeminiCodec().decode(body, GEMINI)
    assert decoded.model == "m" and decoded.stream and not decoded.stream_as_array
    assert decoded.system == "S"
    calls = (
        ToolCall(id="gemini_call_0_0", name="read", arguments={"p": 1}),
        ToolCall(id="gemini_call_0_1", name="ls"),
        ToolCall(id="gemini_call_0_2", name="read", arguments={"p": 2}),
    )
    assert decoded.messages == (
        ChatMessage(role="user", content="a\n\nb"),
        ChatMessage(role="assistant", content="Calling.", reasoning="think", tool_calls=calls),
        ChatMessage(role="tool", content="files", tool_call_id="gemini_call_0_1"),
        ChatMessage(role="tool", content="one", tool_call_id="gemini_call_0_0"),
        ChatMessage(role="tool", content='{"n": 2}', tool_call_id="gemini_call_0_2"),
        ChatMessage(role="user", content="and then?"),
        ChatMessage(role="assistant", tool_calls=(ToolCall(id="call_z", name="x"),)),
        ChatMessage(role="tool", content="s", tool_call_id="call_z"),  # paired by order
    )
    read, ls, noop = decoded.tools
    assert read.parameters == {"type": "object", "properties": {"p": {"type": "integer"}}}
    assert ls.parameters == {"type": "object", "properties": {}}
    assert noop.parameters == {"type": "object"}


def test_gemini_stream_without_sse_is_an_array_and_orphans_get_ids():
    body = {"contents": [{"parts": [{"functionResponse": {"name": "f", "response": {}}}]}]}
    decoded = GeminiCodec().decode(body, Target(model="m", stream=True, sse=False))
    assert decoded.stream_as_array and not decoded.stream
    assert decoded.messages == (
        ChatMessage(role="tool", content="{}", tool_call_id="gemini_response_0_0"),
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "contents"),
        ({"contents": [{"role": "user"}]}, "contents[0].parts"),
        (
            {"contents": [{"parts": [{"functionCall": {"args": {}}}], "role": "model"}]},
            "contents[0].parts[0].functionCall.name",
        ),
        ({"contents": [{"parts": [{"text": 5}]}]}, "contents[0].parts[0].text"),
        (
            {"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"maxOutputTokens": 0}},
            "generationConfig.maxOutputTokens",
        ),
        (
            {"contents": [{"parts": [{"text": "x"}]}], "tools": [{"functionDeclarations": [{}]}]},
            "tools[0].functionDeclarations[0].name",
        ),
    ],
)
def test_gemini_errors_name_the_field(body, field):
    with pytest.raises(WireFormatError) as caught:
        GeminiCodec().decode(body, GEMINI)
    assert caught.value.field == field


def test_gemini_needs_a_model_in_the_path():
    with pytest.raises(WireFormatError, match="names no model"):
        GeminiCodec().decode({"contents": [{"parts": [{"text": "x"}]}]})


def test_anthropic_mid_conversation_system_messages_join_the_system_text():
    body = {
        "model": "m",
        "max_tokens": 5,
        "system": [{"type": "text", "text": "Base."}],
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "Agents: none."},
            {"role": "system", "content": [{"type": "text", "text": "Skills: none."}]},
        ],
    }
    decoded = AnthropicCodec().decode(body)
    assert decoded.system == "Base.\n\nAgents: none.\n\nSkills: none."
    assert decoded.messages == (ChatMessage(role="user", content="hi"),)


@pytest.mark.parametrize(
    ("path", "query", "expected"),
    [
        ("/v1/responses", {}, ("chat", "responses", None, "")),
        ("/t/run%201/v1/messages", {}, ("chat", "anthropic", "run 1", "")),
        (
            "/v1beta/models/agent:edit,emoji:streamGenerateContent",
            {"alt": "sse"},
            ("chat", "gemini", None, "agent:edit,emoji"),
        ),
        (
            "/t/x/v1/models/replay%3Arun%3D..%2Fruns%2Fq:generateContent",
            {},
            ("chat", "gemini", "x", "replay:run=../runs/q"),
        ),
        ("/v1beta/models/a/b:generateContent", {}, ("chat", "gemini", None, "a/b")),
        ("/v1beta/models", {}, ("none", "gemini", None, "")),
        ("/v2/responses", {}, ("none", "responses", None, "")),
        ("/v1/healthz", {}, ("none", "openai", None, "")),
    ],
)
def test_routes(path, query, expected):
    route = resolve(path, query)
    assert (route.kind, route.api, route.trial, route.target.model) == expected
    if route.api == "gemini" and route.kind == "chat":
        assert route.target.stream == ("stream" in path)
        assert route.target.sse == (query.get("alt") == "sse")
