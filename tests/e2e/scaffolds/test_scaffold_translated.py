"""The six agent CLIs through the recording proxy against an upstream of another API shape.

The scripted policy server speaks every shape; the proxy is told the upstream speaks
only one, so each CLI's real requests (its system prompt, tools, tool results,
streaming) are translated into that shape and the answers translated back. Under the
``agent:read`` policy the CLI must call its own read-file tool, get the file's content
back as a tool result, and answer with it: a tool round trip in both directions.
"""

import dataclasses

import pytest

from adhere.observe import MemorySink, ProxyConfig, RecordingProxy, Upstream, normalize
from adhere.scaffolds import get_scaffold
from tests.e2e.scaffolds.scaffold_support import make_context

pytestmark = pytest.mark.slow

PAIRS = [
    ("claude-code", "openai-chat"),
    ("codex", "openai-chat"),
    ("gemini-cli", "openai-chat"),
    ("kilo", "anthropic"),
    ("qwen-code", "anthropic"),
    ("droid", "anthropic"),
    ("claude-code", "gemini"),
    ("codex", "anthropic"),
    ("gemini-cli", "openai-responses"),
    ("kilo", "openai-responses"),
    ("claude-code", "openai-responses"),
    ("codex", "gemini"),
    ("gemini-cli", "anthropic"),
    ("kilo", "gemini"),
    ("qwen-code", "openai-responses"),
    ("qwen-code", "gemini"),
    ("droid", "openai-responses"),
    ("droid", "gemini"),
]
"""Every CLI against each of the three shapes it does not speak."""


@pytest.mark.parametrize(("name", "upstream_api"), PAIRS)
async def test_a_cli_runs_a_tool_loop_against_an_upstream_of_another_shape(
    name, upstream_api, tmp_path, scaffold_cache, start_server
):
    harness = await start_server()
    scaffold = get_scaffold(name)
    assert scaffold.api != upstream_api
    sink = MemorySink()
    upstream = Upstream("m", harness.url, api=upstream_api)
    trial = f"x-{name}-{upstream_api}"
    async with RecordingProxy(ProxyConfig(upstreams={"m": upstream}, sink=sink)) as proxy:
        ctx = make_context(
            tmp_path,
            url=proxy.url,
            trial=trial,
            model="agent:read,file=notes.txt",
            api=scaffold.api,
            turns=["Please read notes.txt and tell me its first line."],
            system_prompt="- Answer in one line.",
            cache_dir=scaffold_cache,
        )
        endpoint = dataclasses.replace(ctx.endpoint, base_url=proxy.trial_base_url(trial, "m"))
        result = await scaffold.run(dataclasses.replace(ctx, endpoint=endpoint))
    records = sink.take(trial)

    assert result.ok, result.turns
    assert "secret contents 42" in result.final_text
    chats = [r for r in records if r.upstream_call is not None]
    assert len(chats) >= 2, [(r.path, r.status, r.error) for r in records]
    for record in chats:
        assert record.api == scaffold.api and record.error is None, record.error
        assert record.upstream_call["api"] == upstream_api
        assert record.upstream_call["status"] == 200
    # The upstream saw the CLI's own tool result, in its own shape.
    assert "secret contents 42" in str(chats[-1].upstream_call["request"])
    # The trajectory normalizes from the CLI's side, as for an untranslated call.
    trajectory = normalize(records, first_user_turn=ctx.instance.turns[0])
    said = [m.content for m in trajectory.messages if m.role == "assistant"]
    assert any("secret contents 42" in text for text in said)
    assert any(m.role == "tool" and "secret contents 42" in m.content for m in trajectory.messages)
    assert "- Answer in one line." in trajectory.system + str(trajectory.messages)
    assert trajectory.tools  # the CLI's own tools
