"""The in-process scaffolds (``chat``, ``reference``) against the scripted policy server."""

import dataclasses

import pytest

from adhere.errors import SpecError
from adhere.scaffolds import get_scaffold
from adhere.testing import ScriptedCall, ScriptStep
from tests.e2e.scaffolds.scaffold_support import NOTES, make_context

CHAT_SCRIPT = [ScriptStep(text="First reply."), ScriptStep(text="Second reply.")]

REFERENCE_SCRIPT = [
    ScriptStep(tool_calls=(ScriptedCall("Read", {"file_path": "notes.txt"}),)),
    ScriptStep(
        tool_calls=(
            ScriptedCall("Write", {"file_path": "out/summary.md", "content": "42\n"}),
            ScriptedCall("Bash", {"command": "wc -l < notes.txt; echo $HOME"}),
        )
    ),
    ScriptStep(
        tool_calls=(
            ScriptedCall(
                "Edit", {"file_path": "notes.txt", "old_string": "42", "new_string": "43"}
            ),
        )
    ),
    ScriptStep(tool_calls=(ScriptedCall("Skill", {"name": "greet"}),)),
    ScriptStep(tool_calls=(ScriptedCall("Read", {"file_path": "/etc/passwd"}),)),
    ScriptStep(text="Done: the notes say 42."),
    ScriptStep(text="Nothing more to do."),
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("api", ["openai-chat", "anthropic"])
async def test_chat_plays_every_turn(api, stream, tmp_path, start_server):
    harness = await start_server({"chat": CHAT_SCRIPT})
    ctx = make_context(
        tmp_path,
        url=harness.url,
        trial=f"chat-{api}",
        model="script:chat",
        api=api,
        turns=["Hello.", "And again."],
        system_prompt="Answer briefly.",
        cache_dir=tmp_path / "cache",
    )
    ctx = dataclasses.replace(ctx, endpoint=dataclasses.replace(ctx.endpoint, stream=stream))

    result = await get_scaffold("chat").run(ctx)

    assert result.ok
    assert [t.final_text for t in result.turns] == ["First reply.", "Second reply."]
    assert result.final_text == "Second reply."
    assert result.files == {}
    assert harness.requests_for(f"chat-{api}") == 2
    last = harness.recorder.seen[-1]
    assert last.system == "Answer briefly."
    assert [m.content for m in last.messages] == ["Hello.", "First reply.", "And again."]


async def test_chat_rejects_an_api_it_cannot_speak(tmp_path):
    ctx = make_context(
        tmp_path,
        url="http://127.0.0.1:9",
        trial="t",
        model="m",
        api="gemini",
        turns=["Hi."],
        cache_dir=tmp_path / "cache",
    )
    with pytest.raises(SpecError, match="gemini"):
        await get_scaffold("chat").run(ctx)


@pytest.mark.parametrize("api", ["openai-chat", "anthropic"])
async def test_reference_agent_uses_its_tools(api, tmp_path, start_server):
    harness = await start_server({"ref": REFERENCE_SCRIPT})
    trial = f"ref-{api}"
    ctx = make_context(
        tmp_path,
        url=harness.url,
        trial=trial,
        model="script:ref",
        api=api,
        turns=["Summarise notes.txt.", "Anything else?"],
        system_prompt="Be careful.",
        cache_dir=tmp_path / "cache",
        files={
            "AGENTS.md": "Always write summaries to out/.\n",
            ".claude/skills/greet/SKILL.md": "Say hello politely.\n",
        },
    )

    result = await get_scaffold("reference").run(ctx)

    assert result.ok, result.turns
    replies = [t.final_text for t in result.turns]
    assert replies == ["Done: the notes say 42.", "Nothing more to do."]
    assert result.files["out/summary.md"] == "42\n"
    assert result.files["notes.txt"] == NOTES.replace("42", "43")
    assert harness.requests_for(trial) == 7
    seen = harness.recorder.seen
    first = seen[0]
    assert "Be careful." in first.system
    assert "Always write summaries to out/." in first.system
    assert "greet" in first.system
    assert {tool.name for tool in first.tools} == {"Read", "Write", "Edit", "Bash", "Skill"}
    results = [m.content for m in seen[-2].messages if m.role == "tool"]
    assert results[0] == NOTES
    assert results[1].startswith("Wrote 3 bytes")
    assert results[2].startswith("exit code: 0\n2\n")
    assert str(ctx.home) in results[2]  # Bash ran with the trial's HOME, not the runner's
    assert results[3].startswith("Replaced 1 occurrence")
    assert results[4] == "Say hello politely.\n"
    assert results[5].startswith("Error:") and "outside the workspace" in results[5]
    # turn 2 continued the same conversation
    assert [m.content for m in seen[-1].messages if m.role == "user"] == [
        "Summarise notes.txt.",
        "Anything else?",
    ]


async def test_reference_agent_stops_at_the_step_limit(tmp_path, start_server):
    loop = [ScriptStep(tool_calls=(ScriptedCall("Read", {"file_path": "notes.txt"}),))] * 10
    harness = await start_server({"loop": loop})
    ctx = make_context(
        tmp_path,
        url=harness.url,
        trial="steps",
        model="script:loop",
        api="openai-chat",
        turns=["Go."],
        cache_dir=tmp_path / "cache",
    )

    result = await get_scaffold("reference", max_steps=3).run(ctx)

    (turn,) = result.turns
    assert turn.exit_code == 1
    assert "step limit" in turn.stderr_tail
    assert harness.requests_for("steps") == 3


async def test_reference_agent_times_out(tmp_path, start_server):
    harness = await start_server({"slow": [ScriptStep(text="late")]})
    ctx = make_context(
        tmp_path,
        url=harness.url,
        trial="slow",
        model="script:slow,delay=30",
        api="anthropic",
        turns=["Go.", "Again."],
        cache_dir=tmp_path / "cache",
        timeout=1.0,
    )

    result = await get_scaffold("reference").run(ctx)

    assert len(result.turns) == 1
    assert result.turns[0].timed_out
    assert result.turns[0].exit_code is None
