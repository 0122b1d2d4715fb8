"""An endpoint's reasoning setting in each API shape, and reasoning tokens read back.

adhere's own clients write it into their bodies (OpenAI Chat, Anthropic); the recording
proxy imposes it on scaffolds' calls in all four shapes (through the endpoint's
``scaffold_controls``). Reasoning tokens are read from each shape's usage.
"""

import pytest
from pydantic import ValidationError

from adhere.artifacts import ProxyCall
from adhere.core import ChatMessage, Usage
from adhere.observe import parse_upstream
from adhere.operator._jobs import upstream_options
from adhere.runner._pairing import upstream_for
from adhere.spec import Endpoint
from adhere.wire import ChatRequest, apply_controls, reasoning_tokens_of
from adhere.wire._apis import usage_of
from adhere.wire.anthropic import AnthropicWire
from adhere.wire.openai_chat import OpenAIWire

HI = ChatRequest(messages=(ChatMessage(role="user", content="hi"),))


def endpoint(api="openai", **fields) -> Endpoint:
    return Endpoint.model_validate(
        {"api": api, "baseUrl": "http://127.0.0.1:1/v1", "model": "m", **fields}
    )


# --- adhere's own clients -------------------------------------------------------------


@pytest.mark.parametrize(
    ("reasoning", "effort"),
    [
        ({"effort": "high"}, "high"),
        ({"budgetTokens": 2000}, "low"),
        ({"effort": "minimal"}, "minimal"),
    ],
)
def test_the_chat_client_sends_an_effort(reasoning, effort):
    body = OpenAIWire().build_body(HI, endpoint(reasoning=reasoning), stream=False)
    assert body["reasoning_effort"] == effort  # a budget goes as its nearest effort
    assert body["max_tokens"] == 4096 and body["temperature"] == 0.0


def test_the_chat_client_sends_nothing_without_a_setting():
    body = OpenAIWire().build_body(HI, endpoint(), stream=False)
    assert "reasoning_effort" not in body


@pytest.mark.parametrize(
    ("reasoning", "budget"),
    [({"effort": "medium"}, 8192), ({"budgetTokens": 5000, "effort": "high"}, 5000)],
)
def test_the_anthropic_client_sends_a_thinking_budget_below_the_cap(reasoning, budget):
    ep = endpoint("anthropic", reasoning=reasoning, maxTokens=16000)
    body = AnthropicWire().build_body(HI, ep, stream=False)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == 16000
    assert "temperature" not in body  # the endpoint's 0.0: the API refuses it with thinking


@pytest.mark.parametrize(
    ("max_tokens", "asked", "sent"),
    [(16000, 3000, 11192), (16000, 10000, 16000), (9000, 9000, 9000), (16000, None, 16000)],
)
def test_a_calls_own_cap_is_the_answers_and_the_budget_comes_on_top(max_tokens, asked, sent):
    # A judge asks for 3,000 tokens of verdicts: the 8,192 of thinking come on top, up
    # to the endpoint's maxTokens, so the answer never starves.
    ep = endpoint("anthropic", reasoning={"effort": "medium"}, maxTokens=max_tokens)
    request = ChatRequest(messages=HI.messages, max_tokens=asked)
    for wire in (AnthropicWire(), OpenAIWire()):
        body = wire.build_body(request, ep, stream=False)
        assert body["max_tokens"] == sent
    body = AnthropicWire().build_body(request, ep, stream=False)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    plain = OpenAIWire().build_body(request, endpoint(maxTokens=max_tokens), stream=False)
    assert plain["max_tokens"] == (asked or max_tokens)  # no reasoning: the call's own cap


@pytest.mark.parametrize(("reasoning", "max_tokens"), [(None, 64), ({"effort": "low"}, 2000)])
def test_no_call_goes_out_with_more_than_the_endpoints_max_tokens(reasoning, max_tokens):
    # A judge asks for 4,096 tokens of verdicts from an endpoint a user capped lower
    # (to bound a weak local model, or spend): the endpoint's cap wins.
    for api, wire in (("anthropic", AnthropicWire()), ("openai", OpenAIWire())):
        if api == "anthropic" and reasoning is not None:
            continue  # an Anthropic thinking budget must fit under maxTokens (refused)
        ep = endpoint(api, reasoning=reasoning, maxTokens=max_tokens)
        request = ChatRequest(messages=HI.messages, max_tokens=4096)
        assert wire.build_body(request, ep, stream=False)["max_tokens"] == max_tokens


# --- the endpoint's validation ----------------------------------------------------------


def test_an_anthropic_budget_must_fit_under_max_tokens():
    with pytest.raises(
        ValidationError,
        match=r"thinking budget \(24,576 tokens\) must be below maxTokens \(4,096\)",
    ):
        endpoint("anthropic", reasoning={"effort": "high"})
    with pytest.raises(ValidationError, match="at least 1,024 tokens, got 500"):
        endpoint("anthropic", reasoning={"budgetTokens": 500}, maxTokens=8000)
    assert endpoint("gemini", reasoning={"budgetTokens": 500}).reasoning.budget == 500
    assert endpoint("openai", reasoning={"effort": "high"}).max_tokens == 4096


def test_reasoning_needs_a_value_and_is_given_once():
    with pytest.raises(ValidationError, match="give 'effort'"):
        endpoint(reasoning={})
    with pytest.raises(
        ValidationError, match="Input should be 'none', 'minimal', 'low', 'medium' or 'high'"
    ):
        endpoint(reasoning={"effort": "max"})
    with pytest.raises(ValidationError, match="give reasoning once"):
        endpoint(reasoning={"effort": "low"}, controls={"reasoningEffort": "high"})


# --- the proxy: every scaffold call, in the upstream's shape ----------------------------

CLIENT_BODIES = {
    "anthropic": {"max_tokens": 32000, "temperature": 0.5, "messages": []},
    "openai-chat": {"max_tokens": 32000, "messages": [], "reasoning_effort": "low"},
    "openai-responses": {"max_output_tokens": 32000, "input": []},
    "gemini": {"contents": [], "generationConfig": {"maxOutputTokens": 32000}},
}


@pytest.mark.parametrize(
    ("api", "read"),
    [
        ("openai", lambda b: b["reasoning_effort"]),
        ("openai-responses", lambda b: b["reasoning"]),
        ("anthropic", lambda b: (b["thinking"], "temperature" in b)),
        ("gemini", lambda b: b["generationConfig"]["thinkingConfig"]),
    ],
)
def test_the_proxy_imposes_the_endpoint_reasoning_in_each_shape(api, read):
    ep = endpoint(api, reasoning={"effort": "medium"}, maxTokens=40000)
    upstream = upstream_for("m", ep, ep.base_url, None)
    shape = ep.wire_api
    out = apply_controls(shape, CLIENT_BODIES[shape], upstream.controls)
    expected = {
        "openai": "medium",
        "openai-responses": {"effort": "medium"},
        "anthropic": ({"type": "enabled", "budget_tokens": 8192}, False),
        "gemini": {"thinkingBudget": 8192},
    }[api]
    assert read(out) == expected


def test_the_proxy_budget_becomes_the_nearest_effort_for_openai_shapes():
    ep = endpoint("openai-responses", reasoning={"budgetTokens": 20000})
    controls = upstream_for("m", ep, ep.base_url, None).controls
    out = apply_controls("openai-responses", CLIENT_BODIES["openai-responses"], controls)
    assert out["reasoning"] == {"effort": "high"}
    ep = endpoint("gemini", reasoning={"budgetTokens": 20000, "effort": "low"})
    controls = upstream_for("m", ep, ep.base_url, None).controls
    out = apply_controls("gemini", CLIENT_BODIES["gemini"], controls)
    assert out["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 20000}


# --- reasoning tokens read back ---------------------------------------------------------


@pytest.mark.parametrize(
    ("api", "response", "expected"),
    [
        (
            "openai-chat",
            {
                "usage": {
                    "completion_tokens": 9,
                    "completion_tokens_details": {"reasoning_tokens": 7},
                }
            },
            7,
        ),
        ("openai-chat", {"usage": {"completion_tokens": 9}}, None),
        ("openai-chat", {"usage": {"completion_tokens_details": {"reasoning_tokens": -1}}}, None),
        (
            "openai-responses",
            {"usage": {"output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 4}}},
            4,
        ),
        ("gemini", {"usageMetadata": {"candidatesTokenCount": 2, "thoughtsTokenCount": 6}}, 6),
        ("gemini", {"usageMetadata": {"candidatesTokenCount": 2}}, None),
        (
            "anthropic",
            {"usage": {"output_tokens": 50}, "content": [{"type": "thinking", "thinking": "x"}]},
            None,
        ),
    ],
)
def test_reasoning_tokens_per_shape(api, response, expected):
    assert reasoning_tokens_of(api, response) == expected
    usage = usage_of(api, response)
    assert usage is not None and usage.get("reasoning_tokens") == expected


def test_the_chat_client_reads_reasoning_tokens_and_anthropic_has_none():
    reply = {
        "choices": [
            {"message": {"content": "ok", "reasoning_content": "hm"}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": 3,
            "completion_tokens": 9,
            "completion_tokens_details": {"reasoning_tokens": 7},
        },
    }
    parsed = OpenAIWire().parse_reply(reply)
    assert parsed.usage == Usage(input_tokens=3, output_tokens=9, reasoning_tokens=7)
    anthropic = {
        "content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": 3, "output_tokens": 9},
    }
    assert AnthropicWire().parse_reply(anthropic).usage.reasoning_tokens is None


def test_usage_sums_keep_unknown_apart_from_zero():
    assert (Usage(reasoning_tokens=2) + Usage()).reasoning_tokens == 2
    assert (Usage() + Usage()).reasoning_tokens is None


def test_a_translated_call_counts_the_upstreams_reasoning_tokens():
    base = {
        "seq": 0,
        "trial": "t",
        "upstream": "u",
        "api": "anthropic",
        "method": "POST",
        "path": "/v1/messages",
        "query": "",
        "stream": False,
        "request": {},
        "status": 200,
        "response": {},
        "sse_events": 0,
        "error": None,
        "started_at": "2026-01-01T00:00:00Z",
        "duration_seconds": 0.1,
        "ttfb_seconds": 0.1,
        "usage": {"input_tokens": 1, "output_tokens": 9},
    }
    plain = ProxyCall.from_json_dict(base)
    assert plain.reasoning_tokens is None
    translated = ProxyCall.from_json_dict(
        {
            **base,
            "upstream_call": {
                "api": "gemini",
                "usage": {"input_tokens": 1, "output_tokens": 9, "reasoning_tokens": 6},
            },
        }
    )
    assert translated.reasoning_tokens == 6
    native = ProxyCall.from_json_dict({**base, "usage": {**base["usage"], "reasoning_tokens": 5}})
    assert native.reasoning_tokens == 5


@pytest.mark.parametrize(
    ("api", "read", "expected"),
    [
        ("openai", lambda b: b["reasoning_effort"], "none"),
        ("openai-responses", lambda b: b["reasoning"], {"effort": "none"}),
        ("anthropic", lambda b: "thinking" in b, False),
        ("gemini", lambda b: b["generationConfig"]["thinkingConfig"], {"thinkingBudget": 0}),
    ],
)
def test_effort_none_turns_thinking_off_in_each_shape(api, read, expected):
    ep = endpoint(api, reasoning={"effort": "none"})  # no budget rule for anthropic
    shape = ep.wire_api
    client_body = {**CLIENT_BODIES[shape]}
    if shape == "anthropic":
        client_body["thinking"] = {"type": "enabled", "budget_tokens": 4000}
    if shape == "gemini":
        client_body["generationConfig"] = {"thinkingConfig": {"thinkingBudget": 4000}}
    out = apply_controls(shape, client_body, upstream_for("m", ep, ep.base_url, None).controls)
    assert read(out) == expected
    if shape == "anthropic":
        assert out["temperature"] == 0.5  # no thinking: the scaffold's temperature stays


def test_the_in_cluster_sidecar_gets_the_endpoint_reasoning():
    ep = endpoint("gemini", reasoning={"budgetTokens": 3000, "effort": "low"})
    options = dict(upstream_options(ep))
    assert (options["reasoning-effort"], options["thinking-budget"]) == ("low", "3000")
    text = "m=http://127.0.0.1:1," + ",".join(f"{k}={v}" for k, v in options.items())
    upstream, _ = parse_upstream(text)
    assert upstream.controls == upstream_for("m", ep, ep.base_url, None).controls
