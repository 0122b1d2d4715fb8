"""``adhere proxy --upstream NAME=URL[,OPTION=VALUE…]``: what each option becomes."""

import pytest

from adhere.observe import parse_upstream
from adhere.wire import Controls


def test_every_option_is_read():
    upstream, key_env = parse_upstream(
        "m=http://127.0.0.1:9/v1,key-env=K,api=gemini,model=gem-x,"
        "max-output-tokens=64,temperature=0.5,reasoning-effort=high,thinking-budget=2000"
    )
    assert key_env == "K"
    assert (upstream.name, upstream.base_url, upstream.api) == ("m", "http://127.0.0.1:9", "gemini")
    assert upstream.model == "gem-x"
    assert upstream.controls == Controls(
        max_output_tokens=64, temperature=0.5, reasoning_effort="high", thinking_budget=2000
    )
    assert upstream.api_key is None


def test_a_bare_upstream_forwards_as_it_comes():
    upstream, key_env = parse_upstream("m=https://api.example.com")
    assert key_env is None and upstream.api is None and upstream.controls.empty
    assert upstream.timeout_seconds == 10800 and upstream.idle_timeout_seconds == 900


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("m", "expected NAME=URL"),
        ("m=http://x,api", "expected OPTION=VALUE"),
        ("m=http://x,colour=red", "unknown option 'colour'"),
        ("m=http://x,api=openai", "api='openai': expected one of"),
        ("m=http://x,reasoning-effort=max", "reasoning-effort='max'"),
        ("m=http://x,max-output-tokens=lots", "max-output-tokens='lots' is not a number"),
        ("m=ftp://x", r"base_url must be an http\(s\) URL"),
    ],
)
def test_malformed_upstreams_say_what_is_wrong(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_upstream(text)
