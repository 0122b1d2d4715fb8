import copy

import pytest

from adhere.observe._redact import (
    MIN_SECRET_LENGTH,
    REDACTED,
    Redactor,
    redact,
    redact_query,
    redact_text,
)

OPENAI_KEY = "sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789_-xyz"
OLD_OPENAI_KEY = "sk-" + "Ab1" * 16
ANTHROPIC_KEY = "sk-ant-api03-" + "Zx9Yw8Vu7" * 10 + "AA"
GOOGLE_KEY = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"


def test_known_secrets_are_replaced_everywhere_in_nested_values():
    value = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "token hunter2-secret here"},
            {"role": "user", "content": ["hunter2-secret", ("x", "hunter2-secretive")]},
        ],
        "n": 3,
        "flag": True,
        "none": None,
        "hunter2-secret": "keys are not touched",
    }
    before = copy.deepcopy(value)
    out = redact(value, ["hunter2-secret"])
    assert value == before  # pure
    assert out["messages"][0]["content"] == f"token {REDACTED} here"
    assert out["messages"][1]["content"] == [REDACTED, ["x", f"{REDACTED}ive"]]
    assert (out["n"], out["flag"], out["none"], out["model"]) == (3, True, None, "m")
    assert out["hunter2-secret"] == "keys are not touched"


def test_overlapping_secrets_prefer_the_longest():
    assert redact_text("abcdef-123456", ["abcdef", "abcdef-123456"]) == REDACTED
    assert redact_text("xx abcdef yy", ["abcdef", "abcdef-123456"]) == f"xx {REDACTED} yy"


@pytest.mark.parametrize("secret", ["", "   ", None, "abc", "x" * (MIN_SECRET_LENGTH - 1)])
def test_empty_and_short_values_are_not_searched(secret):
    text = "abc xxxxx the cat sat"
    assert redact_text(text, [secret]) == text


def test_secrets_are_matched_literally_and_stripped():
    assert redact_text("a+b*c(d)e? here", ["a+b*c(d)e?"]) == f"{REDACTED} here"
    assert redact_text("value s3cr3t-val!", ["  s3cr3t-val!\n"]) == f"value {REDACTED}"


@pytest.mark.parametrize("key", [OPENAI_KEY, OLD_OPENAI_KEY, ANTHROPIC_KEY, GOOGLE_KEY])
def test_key_shaped_tokens_are_replaced_without_being_known(key):
    for text, expected in [
        (key, REDACTED),
        (f"key: {key}.", f"key: {REDACTED}."),
        (f'{{"k": "{key}"}}', f'{{"k": "{REDACTED}"}}'),
        (f"Bearer {key}\nnext", f"Bearer {REDACTED}\nnext"),
    ]:
        assert redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "ask-me-anything-about-the-long-kebab-case-name",
        "task-management-system-for-everyone-here",
        "sk-short1A",
        "the sk-learn library and disk-based caches",
        "AIza is a prefix but AIzaShort is not a key",
        "xsk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789",  # inside a longer token
        GOOGLE_KEY + "Z",  # too long for a Google key
        "Run `pip install scikit-learn` then sk-pure-lowercase-words-only-here",
    ],
)
def test_ordinary_text_survives_the_key_heuristic(text):
    assert redact_text(text) == text


def test_key_shapes_can_be_switched_off():
    assert Redactor(key_shapes=False).text(OPENAI_KEY) == OPENAI_KEY
    assert Redactor(["known-secret"], key_shapes=False).text("a known-secret") == (f"a {REDACTED}")


def test_a_known_secret_inside_a_non_key_token_is_still_removed():
    text = "sk-lowercase-words-then-mysecretvalue-end"
    assert redact_text(text, ["mysecretvalue"]) == f"sk-lowercase-words-then-{REDACTED}-end"


def test_credential_fields_are_blanked_whatever_their_value():
    value = {
        "api_key": "short",
        "Authorization": "Bearer abc",
        "x-api-key": "k",
        "password": "pw",
        "nested": [{"access_token": "t"}],
        "key": "not a credential field name",
        "api_key_schema": {"type": "string"},
        "secret": {"type": "string"},  # a schema, not a value
        "empty": {"password": ""},
    }
    out = redact(value)
    assert out["api_key"] == out["Authorization"] == out["x-api-key"] == REDACTED
    assert out["password"] == out["nested"][0]["access_token"] == REDACTED
    assert out["key"] == "not a credential field name"
    assert out["api_key_schema"] == {"type": "string"}
    assert out["secret"] == {"type": "string"}
    assert out["empty"] == {"password": ""}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ""),
        ("alt=sse", "alt=sse"),
        ("alt=sse&key=anything", "alt=sse&key=[redacted]"),
        ("key=anything&alt=sse", "key=[redacted]&alt=sse"),
        (
            "api_key=a&apikey=b&access_token=c&token=d",
            "api_key=[redacted]&apikey=[redacted]&access_token=[redacted]&token=[redacted]",
        ),
        ("beta=true", "beta=true"),
        ("q=my-known-secret-1", "q=[redacted]"),
        ("q=a%20my-known-secret-1%20b", "q=a+[redacted]+b"),
        (f"x={GOOGLE_KEY}", "x=[redacted]"),
        ("flag&key", "flag&key"),
    ],
)
def test_queries_lose_credential_parameters_and_secrets(query, expected):
    assert redact_query(query, ["my-known-secret-1"]) == expected


def test_documents_without_secrets_come_back_as_equal_copies():
    value = {"messages": [{"role": "user", "content": "a task-based plan, no secrets"}]}
    out = redact(value, ["not-present-value"])
    assert out == value and out is not value
    assert out["messages"] is not value["messages"]


def test_secrets_that_json_escapes_are_still_found_in_documents():
    secret = 'quote"and\\slash-secret'
    value = {"content": [f"before {secret} after"], "n": [1.5, None]}
    assert redact(value, [secret]) == {"content": [f"before {REDACTED} after"], "n": [1.5, None]}


def test_values_that_are_not_plain_json_are_walked_too():
    value = {"when": object, 1: "key hunter2-secret", "t": ("hunter2-secret",)}
    out = redact(value, ["hunter2-secret"])
    assert out == {"when": object, 1: f"key {REDACTED}", "t": [REDACTED]}
    assert redact("plain hunter2-secret", ["hunter2-secret"]) == f"plain {REDACTED}"
    assert redact(42, ["hunter2-secret"]) == 42
