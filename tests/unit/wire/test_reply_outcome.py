"""Model-side outcomes read from each API shape: context length, refusal, output cap, empty."""

import pytest

from adhere.wire import MODEL_OUTCOMES, reply_outcome


def anthropic(stop="end_turn", *blocks):
    return {"type": "message", "content": list(blocks), "stop_reason": stop}


def chat(content="hi", finish="stop", **message):
    return {"choices": [{"message": {"content": content, **message}, "finish_reason": finish}]}


def responses(*items, reason=None):
    details = {"reason": reason} if reason else None
    return {"object": "response", "output": list(items), "incomplete_details": details}


def gemini(*parts, finish="STOP"):
    return {"candidates": [{"content": {"parts": list(parts)}, "finishReason": finish}]}


TEXT = {"type": "text", "text": "hi"}
TOOL = {"type": "tool_use", "id": "t", "name": "read", "input": {}}
MESSAGE = {"type": "message", "content": [{"type": "output_text", "text": "hi"}]}

CASES = [
    ("anthropic", anthropic("end_turn", TEXT), None),
    ("anthropic", anthropic("tool_use", TOOL), None),
    ("anthropic", anthropic("refusal", TEXT), "refusal"),
    ("anthropic", anthropic("max_tokens", TEXT), "max_tokens"),
    ("anthropic", anthropic("model_context_window_exceeded"), "context_length"),
    ("anthropic", anthropic("end_turn", {"type": "thinking", "thinking": "hm"}), "empty"),
    ("anthropic", anthropic("end_turn", {"type": "text", "text": "  \n"}), "empty"),
    ("openai-chat", chat(), None),
    ("openai-chat", chat(None, "tool_calls", tool_calls=[{"id": "c"}]), None),
    ("openai-chat", chat("", "content_filter"), "refusal"),
    ("openai-chat", chat(None, refusal="I can't help with that."), "refusal"),
    ("openai-chat", chat("partial", "length"), "max_tokens"),
    ("openai-chat", chat("", reasoning_content="thinking only"), "empty"),
    ("openai-responses", responses(MESSAGE), None),
    ("openai-responses", responses({"type": "function_call", "name": "f"}), None),
    (
        "openai-responses",
        responses({"type": "reasoning"}, reason="max_output_tokens"),
        "max_tokens",
    ),
    ("openai-responses", responses(reason="content_filter"), "refusal"),
    (
        "openai-responses",
        responses({"type": "message", "content": [{"type": "refusal", "refusal": "no"}]}),
        "refusal",
    ),
    ("openai-responses", responses({"type": "reasoning"}), "empty"),
    ("gemini", gemini({"text": "hi"}), None),
    ("gemini", gemini({"functionCall": {"name": "f"}}), None),
    ("gemini", gemini({"text": "x"}, finish="SAFETY"), "refusal"),
    ("gemini", {"promptFeedback": {"blockReason": "SAFETY"}}, "refusal"),
    ("gemini", gemini({"text": "x"}, finish="MAX_TOKENS"), "max_tokens"),
    ("gemini", gemini({"text": "hm", "thought": True}), "empty"),
]


@pytest.mark.parametrize(("api", "response", "outcome"), CASES)
def test_successful_replies(api, response, outcome):
    assert reply_outcome(api, 200, response) == outcome


@pytest.mark.parametrize(
    ("api", "body"),
    [
        ("openai-chat", {"error": {"message": "...", "code": "context_length_exceeded"}}),
        ("openai-chat", {"error": {"message": "This model's maximum context length is 8192"}}),
        ("anthropic", {"type": "error", "error": {"type": "invalid_request_error",
                       "message": "prompt is too long: 210000 tokens > 200000 maximum"}}),
        ("gemini", {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message":
                    "The input token count (1200000) exceeds the maximum number of tokens "
                    "allowed (1048576)."}}),
        ("openai-chat", {"error": {"code": 400, "type": "exceed_context_size_error",
                         "message": "the request exceeds the available context size"}}),
    ],
)  # fmt: skip
def test_a_400_saying_the_input_is_too_long_is_context_length(api, body):
    assert reply_outcome(api, 400, body) == "context_length"


def test_other_errors_and_other_documents_have_no_model_side_outcome():
    bad_request = {"error": {"message": "messages: field required", "type": "invalid_request"}}
    assert reply_outcome("openai-chat", 400, bad_request) is None
    assert reply_outcome("anthropic", 529, {"error": {"message": "context window busy"}}) is None
    assert reply_outcome("anthropic", 200, {"input_tokens": 12}) is None  # count_tokens
    assert reply_outcome("openai-chat", 200, {"object": "list", "data": []}) is None
    assert reply_outcome("gemini", 200, {"totalTokens": 3}) is None
    assert reply_outcome("openai-chat", None, None) is None
    assert MODEL_OUTCOMES == ("context_length", "refusal", "max_tokens", "empty")
