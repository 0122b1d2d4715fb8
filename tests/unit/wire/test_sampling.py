"""Sampling settings, tool choice and stop reasons, read and written in every shape."""

import pytest

from adhere.wire._sampling import (
    EFFORT_BUDGETS,
    Controls,
    Sampling,
    apply_controls,
    read_sampling,
    stop_of,
    write_sampling,
)

SHAPES = ["anthropic", "openai-chat", "openai-responses", "gemini"]
FULL = Sampling(
    max_tokens=5000,
    temperature=0.7,
    top_p=0.9,
    stop=("END",),
    tool_choice="read_file",
    thinking_budget=2048,
)


@pytest.mark.parametrize("api", SHAPES)
@pytest.mark.parametrize("choice", ["auto", "none", "required", "read_file"])
def test_written_settings_read_back_the_same(api, choice):
    body = {}
    sampling = Sampling(
        max_tokens=5000,
        # Anthropic with thinking takes temperature 1 and top_p of 0.95 or more only
        temperature=1.0 if api == "anthropic" else 0.7,
        top_p=0.95 if api == "anthropic" else 0.9,
        stop=() if api == "openai-responses" else ("END",),  # Responses has no stop
        tool_choice=choice,
        reasoning_effort="low" if api.startswith("openai") else None,
        thinking_budget=None if api.startswith("openai") else 2048,
    )
    write_sampling(api, body, sampling, has_tools=True)
    assert read_sampling(api, body) == sampling


def test_each_shape_puts_the_settings_in_its_own_fields():
    bodies = {}
    for api in SHAPES:
        bodies[api] = {}
        write_sampling(api, bodies[api], FULL, has_tools=True)
    assert bodies["anthropic"] == {  # thinking on: the API refuses temperature 0.7, top_p 0.9
        "max_tokens": 5000,
        "stop_sequences": ["END"],
        "tool_choice": {"type": "tool", "name": "read_file"},
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    }
    assert bodies["openai-chat"] == {
        "max_tokens": 5000,
        "stop": ["END"],
        "reasoning_effort": "low",  # the budget's nearest effort
        "temperature": 0.7,
        "top_p": 0.9,
        "tool_choice": {"type": "function", "function": {"name": "read_file"}},
    }
    assert bodies["openai-responses"]["reasoning"] == {"effort": "low"}
    assert bodies["openai-responses"]["tool_choice"] == {"type": "function", "name": "read_file"}
    assert bodies["gemini"] == {
        "generationConfig": {
            "maxOutputTokens": 5000,
            "temperature": 0.7,
            "topP": 0.9,
            "stopSequences": ["END"],
            "thinkingConfig": {"thinkingBudget": 2048},
        },
        "toolConfig": {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}
        },
    }


def test_anthropic_thinking_is_left_out_when_the_budget_cannot_fit():
    body = {}
    write_sampling(
        "anthropic", body, Sampling(max_tokens=900, reasoning_effort="high"), has_tools=False
    )
    assert "thinking" not in body  # the API wants 1,024 <= budget < max_tokens
    body = {}
    write_sampling(
        "anthropic", body, Sampling(max_tokens=30000, reasoning_effort="high"), has_tools=False
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": EFFORT_BUDGETS["high"]}


def test_tool_choice_is_only_written_when_tools_are_offered():
    body = {}
    write_sampling("openai-chat", body, Sampling(tool_choice="required"), has_tools=False)
    assert body == {}


def test_max_completion_tokens_is_kept_when_the_client_used_it():
    body = apply_controls(
        "openai-chat", {"max_completion_tokens": 9000}, Controls(max_output_tokens=100)
    )
    assert body == {"max_completion_tokens": 100}


@pytest.mark.parametrize(
    ("given", "cap", "expected"), [(None, 64, 64), (4000, 64, 64), (10, 64, 10), (10, None, 10)]
)
def test_the_cap_lowers_or_sets_the_output_limit(given, cap, expected):
    assert Controls(max_output_tokens=cap).impose(Sampling(max_tokens=given)).max_tokens == expected


def test_controls_replace_the_clients_reasoning():
    body = {"thinking": {"type": "enabled", "budget_tokens": 8000}, "max_tokens": 20000}
    out = apply_controls("anthropic", body, Controls(reasoning_effort="minimal"))
    assert out["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["thinking"]["budget_tokens"] == 8000  # the input is not changed
    assert apply_controls("anthropic", body, Controls()) is body


@pytest.mark.parametrize(
    ("api", "response", "expected"),
    [
        ("anthropic", {"stop_reason": "end_turn"}, "end"),
        ("anthropic", {"stop_reason": "max_tokens"}, "max_tokens"),
        ("anthropic", {"stop_reason": "refusal"}, "refusal"),
        ("anthropic", {"stop_reason": "tool_use"}, "tool_calls"),
        ("anthropic", {"stop_reason": "something_new"}, "other"),
        ("anthropic", {"stop_reason": None}, None),
        ("openai-chat", {"choices": [{"finish_reason": "length"}]}, "max_tokens"),
        ("openai-chat", {"choices": [{"finish_reason": "content_filter"}]}, "refusal"),
        ("openai-chat", {"choices": [{"finish_reason": "tool_calls"}]}, "tool_calls"),
        ("openai-chat", {"choices": []}, None),
        (
            "openai-responses",
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            "max_tokens",
        ),
        (
            "openai-responses",
            {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}},
            "refusal",
        ),
        (
            "openai-responses",
            {"status": "completed", "output": [{"type": "function_call"}]},
            "tool_calls",
        ),
        (
            "openai-responses",
            {
                "status": "completed",
                "output": [{"type": "message", "content": [{"type": "refusal"}]}],
            },
            "refusal",
        ),
        ("openai-responses", {"status": "completed", "output": []}, "end"),
        ("gemini", {"candidates": [{"finishReason": "MAX_TOKENS"}]}, "max_tokens"),
        ("gemini", {"candidates": [{"finishReason": "SAFETY"}]}, "refusal"),
        (
            "gemini",
            {
                "candidates": [
                    {"finishReason": "STOP", "content": {"parts": [{"functionCall": {}}]}}
                ]
            },
            "tool_calls",
        ),
        ("gemini", {"candidates": [{"finishReason": "STOP", "content": {"parts": []}}]}, "end"),
        ("gemini", "not a document", None),
    ],
)
def test_stop_reasons_are_read_in_neutral_terms(api, response, expected):
    assert stop_of(api, response) == expected
