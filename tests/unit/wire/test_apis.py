import pytest

from adhere.wire import client_keys, detect_api, error_body, upstream_auth, wants_stream
from adhere.wire._apis import error_summary, usage_of


@pytest.mark.parametrize(
    ("path", "headers", "query", "api"),
    [
        ("/v1/messages", {}, {}, "anthropic"),
        ("/v1/messages/count_tokens", {}, {}, "anthropic"),
        ("/v1/chat/completions", {"x-api-key": "k"}, {}, "openai-chat"),
        ("/openai/v1/chat/completions", {}, {}, "openai-chat"),
        ("/v1/responses", {}, {}, "openai-responses"),
        ("/v1/responses/resp_1/cancel", {}, {}, "openai-responses"),
        ("/v1beta/models/gemini-2.5-pro:streamGenerateContent", {}, {}, "gemini"),
        ("/v1beta/models/gemini-x:countTokens", {}, {}, "gemini"),
        ("/v1/models", {"anthropic-version": "2023-06-01"}, {}, "anthropic"),
        ("/v1/models", {"x-api-key": "k"}, {}, "anthropic"),
        ("/v1beta/models", {}, {"key": "k"}, "gemini"),
        ("/v1beta/models", {"x-goog-api-key": "k"}, {}, "gemini"),
        ("/v1/models", {"authorization": "Bearer k"}, {}, "openai-chat"),
    ],
)
def test_api_shape_comes_from_the_path_then_the_auth_header(path, headers, query, api):
    assert detect_api(path, headers, query) == api


def test_stream_flag_from_the_body_or_the_gemini_action():
    assert wants_stream("anthropic", "/v1/messages", {"stream": True})
    assert not wants_stream("openai-chat", "/v1/chat/completions", {"stream": "yes"})
    assert not wants_stream("openai-responses", "/v1/responses", {"_raw": "x"})
    assert not wants_stream("openai-chat", "/v1/chat/completions", None)
    assert wants_stream("gemini", "/v1beta/models/g:streamGenerateContent", None)
    assert not wants_stream("gemini", "/v1beta/models/g:generateContent", {"stream": True})


def test_auth_goes_upstream_in_the_shape_of_the_api():
    assert upstream_auth("anthropic", "k1") == {"x-api-key": "k1"}
    assert upstream_auth("openai-chat", "k2") == {"Authorization": "Bearer k2"}
    assert upstream_auth("openai-responses", "k3") == {"Authorization": "Bearer k3"}
    assert upstream_auth("gemini", "k4") == {"x-goog-api-key": "k4"}
    assert upstream_auth("gemini", None) == {}


def test_client_keys_are_collected_from_headers_and_query():
    headers = {"authorization": "Bearer  dummy-1 ", "x-api-key": "dummy-2", "x-goog-api-key": ""}
    assert sorted(client_keys(headers, {"key": "dummy-3", "alt": "sse"})) == [
        "dummy-1",
        "dummy-2",
        "dummy-3",
    ]
    assert client_keys({"authorization": "Token raw"}, {}) == ["Token raw"]


def test_error_bodies_follow_each_api():
    anthropic = error_body("anthropic", 502, "down")
    assert anthropic == {"type": "error", "error": {"type": "api_error", "message": "down"}}
    openai = error_body("openai-responses", 404, "nope")["error"]
    assert openai["message"] == "nope" and openai["type"] == "not_found_error"
    gemini = error_body("gemini", 504, "slow")["error"]
    assert gemini == {"code": 504, "message": "slow", "status": "DEADLINE_EXCEEDED"}


def test_usage_is_normalised_per_api():
    anthropic = {"usage": {"input_tokens": 5, "cache_read_input_tokens": 3, "output_tokens": 2}}
    assert usage_of("anthropic", anthropic) == {"input_tokens": 8, "output_tokens": 2}
    chat = {"usage": {"prompt_tokens": 4, "completion_tokens": 6, "total_tokens": 10}}
    assert usage_of("openai-chat", chat) == {"input_tokens": 4, "output_tokens": 6}
    responses = {"usage": {"input_tokens": 7, "output_tokens": 1}}
    assert usage_of("openai-responses", responses) == {"input_tokens": 7, "output_tokens": 1}
    gemini = {
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 2, "thoughtsTokenCount": 3}
    }
    assert usage_of("gemini", gemini) == {
        "input_tokens": 9,
        "output_tokens": 5,
        "reasoning_tokens": 3,
    }
    assert usage_of("anthropic", {"usage": None}) is None
    assert usage_of("gemini", [1]) is None
    assert usage_of("openai-chat", {"usage": {"prompt_tokens": True}}) == {
        "input_tokens": 0,
        "output_tokens": 0,
    }


def test_error_summaries_name_status_and_message():
    openai = {"error": {"message": "Rate limited", "type": "rate_limit"}}
    assert error_summary(429, openai, "") == "HTTP 429: rate_limit: Rate limited"
    gemini = {"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}}
    assert error_summary(400, gemini, "") == "HTTP 400: INVALID_ARGUMENT: bad"
    assert error_summary(500, {"error": "plain"}, "") == "HTTP 500: plain"
    assert error_summary(502, None, "<html>\n Bad   gateway </html>") == (
        "HTTP 502: <html> Bad gateway </html>"
    )
    assert error_summary(503, None, "") == "HTTP 503: (empty body)"
    assert len(error_summary(500, None, "x" * 1000)) < 320
