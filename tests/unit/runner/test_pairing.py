"""Which shapes each scaffold × model pair speaks, and what the proxy is told."""

from adhere.runner import describe_pairings, pairings
from adhere.runner._pairing import upstream_for
from adhere.scaffolds import get_scaffold
from adhere.spec import Endpoint, Rollout


def rollout(*models: tuple[str, dict]) -> Rollout:
    return Rollout.model_validate(
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Rollout",
            "metadata": {"name": "r"},
            "spec": {
                "benchmark": "b",
                "models": [{"name": n, "endpoint": e} for n, e in models],
                "scaffolds": ["chat", "claude-code", "codex"],
            },
        }
    )


def test_pairs_are_native_translated_or_forwarded_as_they_come():
    r = rollout(
        ("gpt", {"api": "openai", "baseUrl": "https://api.example.com/v1", "model": "g"}),
        ("gem", {"api": "gemini", "baseUrl": "https://gem.example.com", "model": "x"}),
        ("double", {"api": "anthropic", "baseUrl": "scripted", "model": "oracle"}),
    )
    scaffolds = {s.name: get_scaffold(s.name) for s in r.spec.scaffolds}
    found = {
        (p.model, p.scaffold): (p.speaks, p.upstream, p.translated) for p in pairings(r, scaffolds)
    }
    assert found[("gpt", "chat")] == ("openai-chat", "openai-chat", False)
    assert found[("gpt", "claude-code")] == ("anthropic", "openai-chat", True)
    assert found[("gpt", "codex")] == ("openai-responses", "openai-chat", True)
    # adhere's clients do not speak Gemini: chat speaks Chat Completions, translated.
    assert found[("gem", "chat")] == ("openai-chat", "gemini", True)
    # the scripted double speaks every shape: nothing is translated.
    assert found[("double", "codex")] == ("openai-responses", None, False)
    lines = describe_pairings(pairings(r, scaffolds))
    assert "claude-code × gpt: anthropic → openai-chat (translated by the proxy)" in lines
    assert "chat × gpt: openai-chat (native)" in lines
    assert any(
        line.startswith("codex × double: openai-responses, served as it comes") for line in lines
    )


def test_the_upstream_carries_shape_model_and_controls():
    endpoint = Endpoint.model_validate(
        {
            "api": "openai-responses",
            "baseUrl": "https://api.example.com/v1",
            "model": "m-1",
            "limits": {"timeoutSeconds": 77},
            "controls": {"maxOutputTokens": 100, "reasoningEffort": "low"},
        }
    )
    upstream = upstream_for("m", endpoint, endpoint.base_url, "sk-real")
    assert (upstream.api, upstream.model) == ("openai-responses", "m-1")
    assert upstream.idle_timeout_seconds == 900  # the proxy's own limits, not the client's 77 s
    assert (
        upstream.controls.max_output_tokens == 100 and upstream.controls.reasoning_effort == "low"
    )
    assert upstream.api_key == "sk-real" and upstream.base_url == "https://api.example.com"
