"""The generation prompt: instructions grouped by source, the agent's turns, read back."""

import pytest

from adhere.core import (
    SYSTEM_INDEX,
    TOOLS_INDEX,
    ChatMessage,
    Source,
    SourceSpan,
    ToolCall,
    ToolSpec,
    Trajectory,
)
from adhere.judging._checkgen_prompt import (
    BEGIN_INSTRUCTIONS,
    InstructionBlock,
    instruction_blocks,
    read_instruction_blocks,
    read_turns,
    render_checkgen_user,
    render_turns,
)

CLAUDE = "- Run pytest after every change.\n----- not a header -----\n===== nor this ====="
SYSTEM = f"You are a coding agent. Never use emoji.\n\n{CLAUDE}"
REMINDER = "<system-reminder>Only edit files you were asked to.</system-reminder>"
USER = f"{REMINDER}\nRename restock to replenish."


def span(source, index, text, needle, label=""):
    start = text.index(needle)
    return SourceSpan(
        source=source, message_index=index, start=start, end=start + len(needle), label=label
    )


TRAJ = Trajectory(
    system=SYSTEM,
    tools=[ToolSpec(name="Read", description="Read a file. Paths must be absolute.")],
    messages=[
        ChatMessage(role="user", content=USER),
        ChatMessage(
            role="assistant",
            content="Reading.",
            reasoning="I should look first.",
            tool_calls=[ToolCall(id="t1", name="Read", arguments={"file_path": "/w/a.py"})],
        ),
        ChatMessage(role="tool", content="x = 1\n" * 200, name="Read", tool_call_id="t1"),
        ChatMessage(role="user", content=REMINDER + "\nThanks."),
        ChatMessage(role="assistant", content="Done."),
    ],
    sources=[
        SourceSpan(
            source=Source.SYSTEM_PROMPT,
            message_index=SYSTEM_INDEX,
            start=0,
            end=len(SYSTEM),
            label="scaffold",
        ),
        span(Source.AGENTS_MD, SYSTEM_INDEX, SYSTEM, CLAUDE, "CLAUDE.md"),
        span(Source.SYSTEM_REMINDER, 0, USER, REMINDER),
        span(Source.USER_QUERY, 0, USER, "Rename restock to replenish.", "turn 1"),
        span(Source.SYSTEM_REMINDER, 3, REMINDER + "\nThanks.", REMINDER),
        SourceSpan(
            source=Source.TOOL_SCHEMA, message_index=TOOLS_INDEX, start=0, end=1, label="Read"
        ),
        SourceSpan(source=Source.STYLE, message_index=0, start=0, end=5),
    ],
    files={"inventory.py": "def replenish(): ...\n"},
)


def test_blocks_are_grouped_by_category_with_nested_sources_cut_out():
    blocks = instruction_blocks(TRAJ)
    assert [(b.category, b.where) for b in blocks] == [
        ("SP", "system prompt (scaffold)"),
        ("System reminder", "message 0"),
        ("User query", "message 0 (turn 1)"),
        ("Agents.md", "system prompt (CLAUDE.md)"),
        ("Tool schema", "tool list (Read)"),
    ]
    sp = blocks[0].text
    assert "Never use emoji." in sp and "Run pytest" not in sp
    assert "[… Agents.md text (CLAUDE.md): see its own block …]" in sp
    assert blocks[3].text == CLAUDE
    assert blocks[4].text.startswith("Read: Read a file. Paths must be absolute.\nParameters: ")


def test_the_prompt_reads_back_and_markers_in_text_are_defused():
    blocks = instruction_blocks(TRAJ)
    user = render_checkgen_user(blocks, render_turns(TRAJ), note="attempt 2")
    assert user.count(BEGIN_INSTRUCTIONS) == 1
    back = read_instruction_blocks(user)
    assert [(b.category, b.where) for b in back] == [(b.category, b.where) for b in blocks]
    claude = back[3].text
    assert "- ---- not a header -----" in claude and "= ==== nor this =====" in claude
    assert "Note on your previous reply:\nattempt 2" in user


def test_agent_turns_are_numbered_and_trimmed():
    turns = render_turns(TRAJ)
    assert "### message 1 · assistant turn A0" in turns
    assert "[reasoning]\nI should look first." in turns
    assert '[tool call Read]\n{"file_path": "/w/a.py"}' in turns
    assert "### message 4 · assistant turn A1" in turns
    assert "characters trimmed" in turns  # the long tool result
    assert "### files created or changed\ninventory.py" in turns
    user = render_checkgen_user(instruction_blocks(TRAJ), turns)
    assert read_turns(user) == turns


def test_empty_trajectory_still_renders():
    empty = Trajectory()
    user = render_checkgen_user(instruction_blocks(empty), render_turns(empty))
    assert read_instruction_blocks(user) == []
    assert "(no instructions were found)" in user and read_turns(user) == "(no messages)"


def test_block_reader_rejects_other_prompts():
    with pytest.raises(ValueError, match="BEGIN INSTRUCTIONS"):
        read_instruction_blocks("Judge this.")
    assert read_turns("Judge this.") is None
    assert InstructionBlock("SP", "x", "y").category == "SP"
