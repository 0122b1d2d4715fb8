import json

import pytest

from adhere.wire._reassemble import reassemble, reassembler_for
from adhere.wire._reassemble_base import decode_sse
from adhere.wire._sse import SseEvent
from adhere.wire.gemini import GeminiReassembler


def ev(data, name="message"):
    return SseEvent(name, data if isinstance(data, str) else json.dumps(data))


def typed(kind, **fields):
    """An event named like its ``type`` field (Anthropic, Responses)."""
    return ev({"type": kind, **fields}, kind)


# --- SSE decoding ---------------------------------------------------------------------


def test_decode_sse_handles_names_multiline_data_comments_and_crlf():
    body = (
        b": keep-alive\r\n"
        b'event: one\r\ndata: {"a":\r\ndata: 1}\r\n\r\n'
        b"data: plain\n\n"
        b"id: 7\nretry: 10\n\n"
        b"data: unterminated"
    )
    assert decode_sse(body) == [
        SseEvent("one", '{"a":\n1}'),
        SseEvent("message", "plain"),
        SseEvent("message", "unterminated"),
    ]


# --- Anthropic ------------------------------------------------------------------------

ANTHROPIC_STREAM = [
    typed(
        "message_start",
        message={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 40, "cache_read_input_tokens": 2, "output_tokens": 1},
        },
    ),
    typed("ping"),
    typed("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
    typed("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Look "}),
    typed("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "first."}),
    typed("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "c2ln"}),
    typed("content_block_stop", index=0),
    typed("content_block_start", index=1, content_block={"type": "text", "text": ""}),
    typed("content_block_delta", index=1, delta={"type": "text_delta", "text": "Reading "}),
    typed("content_block_delta", index=1, delta={"type": "text_delta", "text": "it."}),
    typed("content_block_stop", index=1),
    typed(
        "content_block_start",
        index=2,
        content_block={"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}},
    ),
    typed("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": ""}),
    typed(
        "content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": '{"pa'}
    ),
    typed(
        "content_block_delta",
        index=2,
        delta={"type": "input_json_delta", "partial_json": 'th": "a.py"}'},
    ),
    typed("content_block_stop", index=2),
    typed(
        "content_block_start",
        index=3,
        content_block={"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {}},
    ),
    typed("content_block_stop", index=3),
    typed(
        "message_delta",
        delta={"stop_reason": "tool_use", "stop_sequence": None},
        usage={"output_tokens": 25},
    ),
    typed("message_stop"),
]

ANTHROPIC_MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [
        {"type": "thinking", "thinking": "Look first.", "signature": "c2ln"},
        {"type": "text", "text": "Reading it."},
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.py"}},
        {"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 40, "cache_read_input_tokens": 2, "output_tokens": 25},
}


def test_anthropic_stream_becomes_the_message():
    outcome = reassemble("anthropic", ANTHROPIC_STREAM)
    assert outcome.response == ANTHROPIC_MESSAGE
    assert (outcome.events, outcome.complete, outcome.error) == (len(ANTHROPIC_STREAM), True, None)


def test_anthropic_stream_cut_short_keeps_what_arrived():
    outcome = reassemble("anthropic", ANTHROPIC_STREAM[:14])  # mid tool-call arguments
    assert not outcome.complete and outcome.error is None
    content = outcome.response["content"]
    assert content[1] == {"type": "text", "text": "Reading it."}
    assert content[2]["input"] == {"_raw": '{"pa'}
    assert outcome.response["stop_reason"] is None


def test_anthropic_error_event_and_junk_are_handled():
    events = [
        ev("not json"),
        typed("content_block_delta", index=0, delta={"type": "text_delta", "text": "orphan"}),
        typed("error", error={"type": "overloaded_error", "message": "Overloaded"}),
    ]
    outcome = reassemble("anthropic", events)
    assert outcome.error == "stream error: overloaded_error: Overloaded"
    assert outcome.response["content"] == [{"text": "orphan"}]
    assert reassemble("anthropic", []).response is None


# --- OpenAI Chat Completions ------------------------------------------------------------


def chunk(delta=None, finish=None, index=0, **extra):
    choices = [] if delta is None else [{"index": index, "delta": delta, "finish_reason": finish}]
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 5, "model": "gpt-x"}
    return ev({**head, "choices": choices, **extra})


CHAT_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"reasoning_content": "Need the "}),
    chunk({"reasoning_content": "file."}),
    chunk({"content": "Reading "}),
    chunk({"content": "it."}),
    chunk(
        {
            "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read"}}
            ]
        }
    ),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path":'}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": ' "a.py"}'}}]}),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 1,
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "ls", "arguments": "{}"},
                }
            ]
        }
    ),
    chunk({}, finish="tool_calls"),
    chunk(None, usage={"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}),
    ev("[DONE]"),
]

CHAT_COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 5,
    "model": "gpt-x",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Reading it.",
                "reasoning_content": "Need the file.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path": "a.py"}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "ls", "arguments": "{}"},
                    },
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42},
}


def test_chat_stream_becomes_the_completion():
    outcome = reassemble("openai-chat", CHAT_STREAM)
    assert outcome.response == CHAT_COMPLETION
    assert outcome.complete and outcome.error is None and outcome.events == len(CHAT_STREAM)


def test_chat_stream_of_only_tool_calls_has_null_content_and_finish_means_complete():
    events = [chunk({"role": "assistant"}), *CHAT_STREAM[5:10]]
    outcome = reassemble("openai-chat", events)
    assert outcome.complete  # no [DONE], but the finish reason came
    message = outcome.response["choices"][0]["message"]
    assert message["content"] is None and len(message["tool_calls"]) == 2
    assert "usage" not in outcome.response


def test_chat_stream_keeps_choices_apart_and_reports_errors():
    events = [
        chunk({"content": "a"}, index=0),
        chunk({"content": "b"}, index=1),
        chunk({"content": "c"}, index=1, finish=None),
        chunk({"refusal": "no"}, index=0, finish="stop"),
    ]
    outcome = reassemble("openai-chat", events)
    first, second = outcome.response["choices"]
    assert first["message"] == {"role": "assistant", "content": "a", "refusal": "no"}
    assert second["message"]["content"] == "bc"
    assert not outcome.complete  # choice 1 never finished
    failed = reassemble("openai-chat", [ev({"error": {"message": "boom", "type": "server"}})])
    assert failed.error == "stream error: server: boom" and failed.response is None


# --- OpenAI Responses -----------------------------------------------------------------

RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 9,
    "status": "completed",
    "model": "gpt-x",
    "output": [
        {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Plan."}]},
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Hello there.", "annotations": []}],
        },
        {
            "id": "fc_1",
            "type": "function_call",
            "call_id": "call_1",
            "name": "read",
            "arguments": '{"path": "a.py"}',
            "status": "completed",
        },
        {
            "id": "ct_1",
            "type": "custom_tool_call",
            "call_id": "call_2",
            "name": "apply_patch",
            "input": "*** Begin Patch",
            "status": "completed",
        },
    ],
    "usage": {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18},
}


def responses_stream(*, item_done=True, final_output=True):
    opening = {**RESPONSE, "status": "in_progress", "output": [], "usage": None}
    reasoning, message, call, custom = RESPONSE["output"]
    events = [
        typed("response.created", response=opening),
        typed("response.in_progress", response=opening),
        typed("response.output_item.added", output_index=0, item={**reasoning, "summary": []}),
        typed(
            "response.reasoning_summary_part.added",
            item_id="rs_1",
            output_index=0,
            summary_index=0,
            part={"type": "summary_text", "text": ""},
        ),
        typed(
            "response.reasoning_summary_text.delta",
            item_id="rs_1",
            output_index=0,
            summary_index=0,
            delta="Plan.",
        ),
        typed(
            "response.output_item.added",
            output_index=1,
            item={**message, "status": "in_progress", "content": []},
        ),
        typed(
            "response.content_part.added",
            item_id="msg_1",
            output_index=1,
            content_index=0,
            part={"type": "output_text", "text": "", "annotations": []},
        ),
        typed(
            "response.output_text.delta",
            item_id="msg_1",
            output_index=1,
            content_index=0,
            delta="Hello ",
        ),
        typed(
            "response.output_text.delta",
            item_id="msg_1",
            output_index=1,
            content_index=0,
            delta="there.",
        ),
        typed(
            "response.output_item.added",
            output_index=2,
            item={**call, "arguments": "", "status": "in_progress"},
        ),
        typed(
            "response.function_call_arguments.delta",
            item_id="fc_1",
            output_index=2,
            delta='{"path": ',
        ),
        typed("response.function_call_arguments.delta", item_id="fc_1", delta='"a.py"}'),
        typed(
            "response.output_item.added",
            output_index=3,
            item={**custom, "input": "", "status": "in_progress"},
        ),
        typed(
            "response.custom_tool_call_input.delta",
            item_id="ct_1",
            output_index=3,
            delta="*** Begin ",
        ),
        typed(
            "response.custom_tool_call_input.delta", item_id="ct_1", output_index=3, delta="Patch"
        ),
    ]
    if item_done:
        events += [
            typed("response.output_item.done", output_index=index, item=item)
            for index, item in enumerate(RESPONSE["output"])
        ]
    final = RESPONSE if final_output else {**RESPONSE, "output": []}
    events.append(typed("response.completed", response=final))
    return events


def test_responses_stream_becomes_the_response():
    outcome = reassemble("openai-responses", responses_stream())
    assert outcome.response == RESPONSE and outcome.complete and outcome.error is None


def test_responses_output_is_rebuilt_from_deltas_when_the_final_event_lacks_it():
    outcome = reassemble("openai-responses", responses_stream(item_done=False, final_output=False))
    rebuilt = outcome.response["output"]
    reasoning, message, call, custom = rebuilt
    assert reasoning["summary"] == [{"type": "summary_text", "text": "Plan."}]
    assert message["content"] == [
        {"type": "output_text", "text": "Hello there.", "annotations": []}
    ]
    assert call["arguments"] == '{"path": "a.py"}' and call["name"] == "read"
    assert custom["input"] == "*** Begin Patch"
    assert outcome.response["usage"] == RESPONSE["usage"]


def test_responses_stream_cut_short_is_incomplete_with_partial_output():
    outcome = reassemble("openai-responses", responses_stream()[:9])
    assert not outcome.complete and outcome.error is None
    assert outcome.response["status"] == "in_progress"
    assert outcome.response["output"][1]["content"][0]["text"] == "Hello there."


def test_responses_failures_are_reported():
    failed = {**RESPONSE, "status": "failed", "error": {"code": "server_error", "message": "oops"}}
    outcome = reassemble("openai-responses", [typed("response.failed", response=failed)])
    assert outcome.complete and outcome.error == "response failed: server_error: oops"
    outcome = reassemble("openai-responses", [typed("error", code="rate", message="slow down")])
    assert outcome.error == "stream error: rate: slow down" and outcome.response is None


def test_responses_text_deltas_without_a_started_item_still_land():
    events = [typed("response.output_text.delta", output_index=0, content_index=0, delta="hi")]
    outcome = reassemble("openai-responses", events)
    assert outcome.response["output"] == [
        {"type": "message", "content": [{"type": "output_text", "text": "hi"}]}
    ]


# --- Gemini ---------------------------------------------------------------------------

GEMINI = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Think.", "thought": True},
                    {"text": "Reading it."},
                    {
                        "functionCall": {"name": "read", "args": {"path": "a.py"}},
                        "thoughtSignature": "c2ln",
                    },
                    {"functionCall": {"name": "ls", "args": {}}},
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 6, "totalTokenCount": 15},
    "modelVersion": "gemini-x",
    "responseId": "r1",
}


def gemini_chunks():
    parts = [
        {"text": "Think.", "thought": True},
        {"text": "Reading "},
        {"text": "it."},
        GEMINI["candidates"][0]["content"]["parts"][2],
        GEMINI["candidates"][0]["content"]["parts"][3],
    ]
    chunks = [
        {
            "candidates": [{"content": {"role": "model", "parts": [part]}}],
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
            "modelVersion": "gemini-x",
            "responseId": "r1",
        }
        for part in parts
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = GEMINI["usageMetadata"]
    return chunks


def test_gemini_chunks_become_one_response():
    outcome = reassemble("gemini", [ev(chunk) for chunk in gemini_chunks()])
    assert outcome.response == GEMINI and outcome.complete and outcome.error is None


def test_gemini_json_array_chunks_and_cut_streams():
    reassembler = GeminiReassembler()
    for chunk_ in gemini_chunks():
        reassembler.feed_chunk(chunk_)
    assert reassembler.result() == GEMINI
    cut = reassemble("gemini", [ev(chunk_) for chunk_ in gemini_chunks()[:3]])
    assert not cut.complete
    assert cut.response["candidates"][0]["content"]["parts"][1] == {"text": "Reading it."}


def test_gemini_error_chunk():
    outcome = reassemble(
        "gemini", [ev({"error": {"code": 429, "message": "quota", "status": "X"}})]
    )
    assert outcome.error == "stream error: X: quota" and outcome.response is None


@pytest.mark.parametrize("api", ["anthropic", "openai-chat", "openai-responses", "gemini"])
def test_every_reassembler_survives_garbage(api):
    """Undecodable or mistyped events are skipped: no crash, and no reply is made up."""
    garbage = [ev("{"), ev("[1, 2]"), ev({"type": 3}), ev({"choices": "x", "candidates": 1})]
    reassembler = reassembler_for(api)
    for event in garbage:
        reassembler.feed(event)
    result = reassembler.result()
    json.dumps(result)  # still JSON
    # Nothing was reassembled: no response, or (Gemini) one without candidates.
    assert result == ({"candidates": []} if api == "gemini" else None)
    outcome = reassemble(api, garbage)
    assert not outcome.complete and outcome.response == result
