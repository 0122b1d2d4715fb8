import json

import pytest

from adhere.observe._proxy_config import ProxyConfig, Upstream
from adhere.observe._proxy_record import CallLog, parse_body
from adhere.observe._proxy_sinks import JsonlDirSink, MemorySink
from adhere.observe._redact import Redactor
from adhere.wire._apis import (
    client_keys,
    detect_api,
    error_body,
    error_summary,
    upstream_auth,
    usage_of,
    wants_stream,
)


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
    assert usage_of("gemini", gemini) == {"input_tokens": 9, "output_tokens": 5}
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


def test_upstream_base_urls_drop_a_trailing_version():
    assert Upstream("a", "https://api.openai.com/v1/").base_url == "https://api.openai.com"
    assert Upstream("b", "http://h:1/v1beta").base_url == "http://h:1"
    assert Upstream("c", "https://api.anthropic.com").base_url == "https://api.anthropic.com"
    assert Upstream("d", "https://h/api/v1").base_url == "https://h/api"
    assert Upstream("e", "https://h/v10").base_url == "https://h/v10"


def test_keys_and_secrets_stay_out_of_repr():
    upstream = Upstream("m", "http://h", "sk-very-secret-value")
    config = ProxyConfig({"m": upstream}, MemorySink(), secrets=["other-secret-value"])
    assert "sk-very-secret-value" not in repr(upstream)
    assert "secret-value" not in repr(config)


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"name": "a/b", "base_url": "http://h"}, "upstream name"),
        ({"name": ".x", "base_url": "http://h"}, "upstream name"),
        ({"name": "a", "base_url": "ftp://h"}, "http"),
        ({"name": "a", "base_url": "http://h", "timeout_seconds": 0}, "timeout"),
    ],
)
def test_bad_upstreams_are_refused(kwargs, problem):
    with pytest.raises(ValueError, match=problem):
        Upstream(**kwargs)


def test_config_keys_must_match_upstream_names():
    with pytest.raises(ValueError, match="registered as 'x'"):
        ProxyConfig({"x": Upstream("y", "http://h")}, MemorySink())


def test_memory_sink_hands_records_over_once_in_seq_order():
    sink = MemorySink()
    for seq in (2, 0, 1):
        sink.record("t", {"seq": seq})
    sink.record("u", {"seq": 0})
    assert sink.trials() == ["t", "u"]
    assert sink.take("t") == [{"seq": 0}, {"seq": 1}, {"seq": 2}]
    assert sink.take("t") == [] and sink.trials() == ["u"]


def test_jsonl_sink_appends_one_line_per_record(tmp_path):
    sink = JsonlDirSink(tmp_path)
    sink.record("trial-1", {"seq": 1, "text": "héllo\nworld"})
    sink.record("trial-1", {"seq": 0})
    lines = (tmp_path / "trial-1" / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 0]
    assert sink.read("trial-1") == [{"seq": 0}, {"seq": 1, "text": "héllo\nworld"}]
    assert sink.read("other") == []
    for bad in ("..", "a/b", "", ".hidden"):
        with pytest.raises(ValueError, match="safe directory name"):
            sink.record(bad, {})


def test_bodies_parse_as_json_raw_text_or_nothing():
    assert parse_body(b'{"a": 1}') == {"a": 1}
    assert parse_body(b"[1]") == [1]
    assert parse_body(b"  ") is None
    assert parse_body(b"not json \xff") == {"_raw": "not json \ufffd"}


def log(**fields):
    base = {
        "seq": 0,
        "trial": "t",
        "upstream": "m",
        "api": "openai-chat",
        "method": "POST",
        "path": "/v1/chat/completions",
        "query": "",
    }
    return CallLog(**{**base, **fields})


def test_a_call_log_becomes_a_redacted_record():
    call = log(request={"messages": [{"content": "secret-abc-123"}]}, stream=True, query="key=k")
    call.status, call.content_type = 200, "text/event-stream"
    call.body.extend(b'data: {"choices":[{"index":0,"delta":{"content":"secret-abc-123"}}]}\n\n')
    call.first_bytes()
    record = call.record(Redactor(["secret-abc-123"]))
    assert record["request"] == {"messages": [{"content": "[redacted]"}]}
    assert record["response"]["choices"][0]["message"]["content"] == "[redacted]"
    assert record["query"] == "key=[redacted]"
    assert record["error"] == "the stream ended before its final event"
    assert record["sse_events"] == 1 and record["usage"] is None
    assert 0 <= record["ttfb_seconds"] <= record["duration_seconds"]
    assert list(record) == [
        "seq",
        "trial",
        "upstream",
        "api",
        "method",
        "path",
        "query",
        "stream",
        "request",
        "status",
        "response",
        "sse_events",
        "error",
        "started_at",
        "duration_seconds",
        "ttfb_seconds",
        "usage",
    ]


def test_failed_calls_get_an_error_and_keep_the_body():
    call = log(status=500, content_type="text/html")
    call.body.extend(b"<h1>oops</h1>")
    record = call.record(Redactor())
    assert record["response"] == {"_raw": "<h1>oops</h1>"}
    assert record["error"] == "HTTP 500: <h1>oops</h1>"
    unreachable = log(error="upstream unreachable: refused")
    record = unreachable.record(Redactor())
    assert (record["status"], record["response"], record["error"]) == (
        None,
        None,
        "upstream unreachable: refused",
    )
    sse_error = log(status=429, content_type="text/event-stream")
    sse_error.body.extend(b'data: {"error": {"message": "slow down"}}\n\n')
    assert sse_error.record(Redactor())["error"] == "HTTP 429: stream error: slow down"
