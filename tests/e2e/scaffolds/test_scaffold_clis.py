"""The six agent CLIs, installed from npm and run for real against the scripted policy server.

Each CLI plays a two-turn instance: in turn 1 the scripted model calls the CLI's own
read-file tool (names found by probing each CLI) and then answers; turn 2 continues
the session and gets a second answer. The tests check exit statuses, the parsed
replies, that the file's content came back to the model as a tool result, and that
the second turn's request carries the first exchange.
"""

import os
from pathlib import Path

import pytest

from adhere.scaffolds import get_scaffold
from adhere.testing import ScriptedCall, ScriptStep
from tests.e2e.scaffolds.scaffold_support import NOTES, make_context

pytestmark = pytest.mark.slow

FIRST = "The notes say 42."
SECOND = "Second answer."


def read_step(scaffold: str, workdir: Path) -> ScriptStep:
    """A step calling the CLI's own read-file tool on notes.txt."""
    notes = str(workdir / "notes.txt")
    calls = {
        "claude-code": ScriptedCall("Read", {"file_path": notes}),
        "kilo": ScriptedCall("read", {"filePath": notes}),
        "droid": ScriptedCall("Read", {"file_path": notes}),
        "codex": ScriptedCall("exec_command", {"cmd": "cat notes.txt"}),
        "qwen-code": ScriptedCall("read_file", {"file_path": notes}),
        "gemini-cli": ScriptedCall("read_file", {"file_path": notes}),
    }
    return ScriptStep(tool_calls=(calls[scaffold],))


def two_turn_script(scaffold: str, workdir: Path) -> list[ScriptStep]:
    steps = [read_step(scaffold, workdir), ScriptStep(text=FIRST), ScriptStep(text=SECOND)]
    if scaffold == "qwen-code":
        # Qwen Code opens with a fabricated exchange whose assistant message counts as
        # the first assistant turn, so the model's first real turn is step 1.
        steps.insert(0, ScriptStep(text="(never sent)"))
    return steps


CLIS = ["claude-code", "kilo", "droid", "codex", "qwen-code", "gemini-cli"]


@pytest.mark.parametrize("name", CLIS)
async def test_cli_reads_a_file_answers_and_continues(name, tmp_path, scaffold_cache, start_server):
    workdir = tmp_path / "work"
    harness = await start_server({"loop": two_turn_script(name, workdir)})
    scaffold = get_scaffold(name)
    trial = f"e2e-{name}"
    ctx = make_context(
        tmp_path,
        url=harness.url,
        trial=trial,
        model="script:loop",
        api=scaffold.api,
        turns=["Read notes.txt and tell me what it says.", "And now?"],
        system_prompt="- Be brief.",
        cache_dir=scaffold_cache,
    )

    result = await scaffold.run(ctx)

    assert [t.exit_code for t in result.turns] == [0, 0], result.turns
    assert result.ok
    assert [t.final_text for t in result.turns] == [FIRST, SECOND]
    assert result.final_text == SECOND
    assert harness.requests_for(trial) >= 3
    answered = [c for c in harness.recorder.seen if c.model == "script:loop"]
    # the file's content reached the model as a tool result in turn 1
    assert any("secret contents 42" in m.content for c in answered for m in c.messages)
    # turn 2's request carries turn 1's exchange
    last = answered[-1]
    contents = [m.content for m in last.messages]
    assert any("Read notes.txt and tell me what it says." in text for text in contents)
    assert FIRST in contents
    assert "And now?" in contents[-1]
    # the system prompt (starting with '-') reached the model somewhere
    assert "- Be brief." in last.system + "".join(contents)
    assert result.files["notes.txt"] == NOTES
    assert set(result.files) == {"notes.txt"}


@pytest.mark.parametrize("name", CLIS)
async def test_cli_under_the_agent_read_policy(name, tmp_path, scaffold_cache, start_server):
    harness = await start_server()
    scaffold = get_scaffold(name)
    trial = f"agent-{name}"
    ctx = make_context(
        tmp_path,
        url=harness.url,
        trial=trial,
        model="agent:read,file=notes.txt",
        api=scaffold.api,
        turns=["Please read notes.txt and tell me its first line."],
        cache_dir=scaffold_cache,
    )

    result = await scaffold.run(ctx)

    assert result.ok, result.turns
    assert "secret contents 42" in result.final_text
    assert harness.requests_for(trial) >= 2


async def test_claude_code_timeout_kills_the_process_group(tmp_path, scaffold_cache, start_server):
    harness = await start_server({"slow": [ScriptStep(text="too late")]})
    scaffold = get_scaffold("claude-code")
    ctx = make_context(
        tmp_path,
        url=harness.url,
        trial="slow",
        model="script:slow,delay=30",
        api="anthropic",
        turns=["Say something.", "And again."],
        cache_dir=scaffold_cache,
        timeout=3.0,
    )

    result = await scaffold.run(ctx)

    assert len(result.turns) == 1
    (turn,) = result.turns
    assert turn.timed_out
    assert turn.exit_code is None
    assert 2.5 < turn.seconds < 10
    assert not result.ok
    assert harness.requests_for("slow") >= 1
    assert processes_with_home(ctx.home) == []


def processes_with_home(home: Path) -> list[int]:
    """Processes whose environment has ``HOME=<home>`` (the trial's CLI and its children)."""
    needle = f"HOME={home}".encode() + b"\x00"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read() + b"\x00"
        except OSError:
            continue
        if b"\x00" + needle in b"\x00" + environ:
            found.append(int(entry))
    return found
