import json

import pytest

from adhere.core._chat import ChatMessage, ToolCall, ToolSpec, Usage
from adhere.spec._endpoint import Endpoint
from adhere.wire import ChatRequest, Outgoing, Reply, StreamFailure, WireFormatError
from adhere.wire._sse import SseDecoder
from adhere.wire.anthropic import AnthropicCodec, AnthropicWire
from adhere.wire.openai_chat import OpenAICodec, OpenAIWire

PAIRS = [(OpenAIWire(), OpenAICodec()), (AnthropicWire(), AnthropicCodec())]
IDS = ["openai", "anthropic"]

CONVERSATION = (
    ChatMessage(role="user", content="Fix the bug in app.py"),
    ChatMessage(
        role="assistant",
        content="Let me look.",
        reasoning="the user wants a fix",
        tool_calls=(
            ToolCall(id="c1", name="read", arguments={"path": "app.py"}),
            ToolCall(id="c2", name="grep", arguments={"pattern": "def ", "flags": ["-n"]}),
        ),
    ),
    ChatMessage(role="tool", tool_call_id="c1", content="print('hi')"),
    ChatMessage(role="tool", tool_call_id="c2", content="1: def main():"),
    ChatMessage(role="user", content="Also keep it short."),
    ChatMessage(role="assistant", content="Done."),
    ChatMessage(role="user", content="Thanks"),
)
TOOLS = (
    ToolSpec(name="read", description="Read a file", parameters={"type": "object"}),
    ToolSpec(name="grep"),
)


def endpoint(api):
    return Endpoint(api=api, base_url="http://x", model="m", max_tokens=50, temperature=0.5)


@pytest.mark.parametrize(("wire", "codec"), PAIRS, ids=IDS)
def test_request_round_trip(wire, codec):
    request = ChatRequest(messages=CONVERSATION, system="Be brief.", tools=TOOLS)
    body = json.loads(json.dumps(wire.build_body(request, endpoint(wire.api), False)))
    decoded = codec.decode(body)
    assert decoded.model == "m"
    assert decoded.system == "Be brief."
    assert decoded.tools == TOOLS
    assert not decoded.stream
    # Reasoning is not sent back to providers; everything else survives.
    expected = tuple(message.model_copy(update={"reasoning": ""}) for message in CONVERSATION)
    assert decoded.messages == expected


def test_openai_body_shape():
    request = ChatRequest(messages=CONVERSATION[:2], system="S", tools=TOOLS, stream=True)
    body = OpenAIWire().build_body(request, endpoint("openai"), True)
    assert body["messages"][0] == {"role": "system", "content": "S"}
    call = body["messages"][2]["tool_calls"][0]
    assert call == {
        "id": "c1",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path": "app.py"}'},
    }
    assert body["tools"][0]["function"]["name"] == "read"
    assert body["stream_options"] == {"include_usage": True}
    assert (body["max_tokens"], body["temperature"]) == (50, 0.5)


def test_anthropic_body_shape():
    request = ChatRequest(messages=CONVERSATION[:5], system="S", tools=TOOLS, max_tokens=9)
    body = AnthropicWire().build_body(request, endpoint("anthropic"), False)
    assert body["system"] == "S" and body["max_tokens"] == 9
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "user"]
    assistant = body["messages"][1]["content"]
    assert [block["type"] for block in assistant] == ["text", "tool_use", "tool_use"]
    results = body["messages"][2]["content"]
    assert [block["type"] for block in results] == ["tool_result", "tool_result", "text"]
    assert results[0]["tool_use_id"] == "c1"
    assert body["tools"][0] == {
        "name": "read",
        "description": "Read a file",
        "input_schema": {"type": "object"},
    }


def test_urls_and_headers():
    assert OpenAIWire().url("http://h/v1/") == "http://h/v1/chat/completions"
    assert AnthropicWire().url("http://h") == "http://h/v1/messages"
    assert AnthropicWire().url("http://h/v1") == "http://h/v1/messages"
    assert OpenAIWire().headers("k")["authorization"] == "Bearer k"
    headers = AnthropicWire().headers("k")
    assert headers["x-api-key"] == "k" and headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in OpenAIWire().headers(None)


REPLIES = [
    Reply(text="Plain answer with several words in it to split up."),
    Reply(
        text="Calling tools.",
        reasoning="I should read the file first",
        tool_calls=(
            ToolCall(id="call_1", name="read", arguments={"path": "a b/ç.txt", "n": [1, 2]}),
            ToolCall(id="call_2", name="noop"),
        ),
    ),
    Reply(tool_calls=(ToolCall(id="call_3", name="ls", arguments={"deep": {"x": None}}),)),
    Reply(),
]


def outgoing(reply):
    return Outgoing(
        reply=reply, model="m", ident="abc", created=1, usage=Usage(input_tokens=7, output_tokens=3)
    )


def stream_document(wire, codec, reply, include_usage=True):
    assembler = wire.assembler()
    decoder = SseDecoder()
    for chunk in codec.reply_events(outgoing(reply), include_usage):
        for line in chunk.decode().split("\n"):
            event = decoder.feed(line)
            if event is not None:
                assembler.feed(event)
    assert assembler.finished and assembler.complete
    return assembler.result()


@pytest.mark.parametrize(("wire", "codec"), PAIRS, ids=IDS)
@pytest.mark.parametrize("reply", REPLIES)
def test_reply_round_trip_streaming_or_not(wire, codec, reply):
    plain = wire.parse_reply(json.loads(json.dumps(codec.reply_body(outgoing(reply)))))
    assert plain.message == ChatMessage(
        role="assistant", content=reply.text, tool_calls=reply.tool_calls, reasoning=reply.reasoning
    )
    assert plain.usage == Usage(input_tokens=7, output_tokens=3)
    assert plain.model == "m"
    streamed = wire.parse_reply(stream_document(wire, codec, reply))
    assert streamed == plain


def test_stop_reasons_are_the_providers_own():
    calls = REPLIES[2]
    assert OpenAIWire().parse_reply(OpenAICodec().reply_body(outgoing(calls))).stop_reason == (
        "tool_calls"
    )
    body = AnthropicCodec().reply_body(outgoing(REPLIES[0]))
    assert AnthropicWire().parse_reply(body).stop_reason == "end_turn"


def test_openai_stream_without_usage_chunk_has_zero_usage():
    document = stream_document(OpenAIWire(), OpenAICodec(), REPLIES[0], include_usage=False)
    assert "usage" not in document
    assert OpenAIWire().parse_reply(document).usage == Usage()


def test_openai_stream_reassembles_the_non_streaming_shape():
    document = stream_document(OpenAIWire(), OpenAICodec(), REPLIES[1])
    body = OpenAICodec().reply_body(outgoing(REPLIES[1]))
    assert document["choices"][0]["message"] == body["choices"][0]["message"]
    assert document["usage"] == body["usage"]


def test_anthropic_stream_reassembles_the_non_streaming_shape():
    document = stream_document(AnthropicWire(), AnthropicCodec(), REPLIES[1])
    body = AnthropicCodec().reply_body(outgoing(REPLIES[1]))
    assert document["content"] == body["content"]
    assert document["usage"] == body["usage"]
    assert document["stop_reason"] == "tool_use"


def test_anthropic_usage_counts_cached_input():
    body = AnthropicCodec().reply_body(outgoing(REPLIES[0]))
    body["usage"].update(cache_read_input_tokens=100, cache_creation_input_tokens=20)
    usage = AnthropicWire().parse_reply(body).usage
    assert (usage.input_tokens, usage.cached_input_tokens) == (127, 100)


def test_openai_cached_prompt_tokens_are_read_streaming_or_not():
    body = OpenAICodec().reply_body(outgoing(REPLIES[0]))
    assert OpenAIWire().parse_reply(body).usage.cached_input_tokens is None  # not reported
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 5, "audio_tokens": 0}
    assert OpenAIWire().parse_reply(body).usage == Usage(
        input_tokens=7, output_tokens=3, cached_input_tokens=5
    )
    # llama-server and vLLM send it in the stream's usage chunk, which the assembler keeps.
    document = stream_document(OpenAIWire(), OpenAICodec(), REPLIES[0])
    document["usage"]["prompt_tokens_details"] = {"cached_tokens": 0}
    assert OpenAIWire().parse_reply(document).usage.cached_input_tokens == 0


@pytest.mark.parametrize("details", [None, [], {"cached_tokens": None}, {"cached_tokens": "5"}])
def test_an_odd_cached_token_count_is_left_out_not_an_error(details):
    body = OpenAICodec().reply_body(outgoing(REPLIES[0]))
    body["usage"]["prompt_tokens_details"] = details
    assert OpenAIWire().parse_reply(body).usage.cached_input_tokens is None


def test_anthropic_cache_reads_reported_as_null_are_not_reported():
    body = AnthropicCodec().reply_body(outgoing(REPLIES[0]))
    body["usage"]["cache_read_input_tokens"] = None
    assert AnthropicWire().parse_reply(body).usage.cached_input_tokens is None


def test_usage_adds_cached_tokens_only_when_reported():
    assert (Usage(input_tokens=1) + Usage(input_tokens=2)).cached_input_tokens is None
    total = Usage(input_tokens=10, cached_input_tokens=8) + Usage(input_tokens=5)
    assert total == Usage(input_tokens=15, cached_input_tokens=8)
    assert Usage.model_validate({"input_tokens": 3, "output_tokens": 1}) == Usage(
        input_tokens=3, output_tokens=1
    )


def test_openai_reasoning_content_is_read():
    body = OpenAICodec().reply_body(outgoing(REPLIES[0]))
    body["choices"][0]["message"]["reasoning_content"] = "hmm"
    assert OpenAIWire().parse_reply(body).message.reasoning == "hmm"


def test_stream_error_events_are_failures():
    from adhere.wire._sse import SseEvent

    with pytest.raises(StreamFailure, match="Overloaded"):
        AnthropicWire().assembler().feed(
            SseEvent(
                "error",
                '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
            )
        )
    with pytest.raises(StreamFailure, match="boom"):
        OpenAIWire().assembler().feed(SseEvent("message", '{"error": {"message": "boom"}}'))


@pytest.mark.parametrize(
    ("wire", "document", "field"),
    [
        (OpenAIWire(), {"choices": []}, "choices"),
        (OpenAIWire(), {"choices": [{"message": "x"}]}, "choices[0].message"),
        (
            OpenAIWire(),
            {
                "choices": [
                    {
                        "message": {
                            "tool_calls": [
                                {"id": "1", "function": {"name": "f", "arguments": "{oops"}}
                            ]
                        }
                    }
                ]
            },
            "choices[0].message.tool_calls[0].function.arguments",
        ),
        (AnthropicWire(), {"content": "text"}, "content"),
        (AnthropicWire(), {"content": [{"type": "tool_use", "name": "f"}]}, "content[0].id"),
    ],
)
def test_malformed_replies_name_the_field(wire, document, field):
    with pytest.raises(WireFormatError) as caught:
        wire.parse_reply(document)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("codec", "body", "field"),
    [
        (OpenAICodec(), {"messages": [{"role": "user", "content": "x"}]}, "model"),
        (OpenAICodec(), {"model": "m", "messages": []}, "messages"),
        (OpenAICodec(), {"model": "m", "messages": [{"role": "bot"}]}, "messages[0].role"),
        (
            OpenAICodec(),
            {"model": "m", "messages": [{"role": "tool", "content": "x"}]},
            "messages[0].tool_call_id",
        ),
        (
            OpenAICodec(),
            {"model": "m", "messages": [{"role": "user", "content": 5}]},
            "messages[0].content",
        ),
        (
            OpenAICodec(),
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": "yes"},
            "stream",
        ),
        (
            AnthropicCodec(),
            {"model": "m", "messages": [{"role": "user", "content": "x"}]},
            "max_tokens",
        ),
        (
            AnthropicCodec(),
            {"model": "m", "max_tokens": 5, "messages": [{"role": "robot", "content": "x"}]},
            "messages[0].role",
        ),
        (
            AnthropicCodec(),
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": [{"type": "image"}]}],
            },
            "messages[0].content[0].type",
        ),
    ],
)
def test_malformed_requests_name_the_field(codec, body, field):
    with pytest.raises(WireFormatError) as caught:
        codec.decode(body)
    assert caught.value.field == field


def test_system_messages_are_refused_in_requests():
    with pytest.raises(ValueError, match="ChatRequest.system"):
        ChatRequest(messages=(ChatMessage(role="system", content="x"),))
