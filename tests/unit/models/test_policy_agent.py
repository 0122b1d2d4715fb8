"""The ``agent`` policies: step sequences per behaviour and CLI, violations, fallbacks."""

import json
from pathlib import Path

import pytest

from adhere.core._chat import ChatMessage, ToolSpec
from adhere.testing import ModelStringError, PolicyContext, default_registry, parse_model_string
from adhere.testing._agent import EDIT_LINE, FORBIDDEN_COMMAND, UNREAD
from adhere.testing._agent_text import EMOJI
from adhere.wire import Conversation

FIXTURES = Path(__file__).parent / "fixtures"
CLIS = ["claude-code", "codex", "codex-unknown-model", "droid", "gemini-cli", "kilo", "qwen-code"]
README = "# Probe Project\n\nA tiny project.\n"


def load(cli):
    data = json.loads((FIXTURES / f"tools-{cli}.json").read_text())
    tools = tuple(ToolSpec(name=t["name"], parameters=t["parameters"]) for t in data["tools"])
    return tools, data["cwd_excerpt"]


def build(model):
    return default_registry().create(parse_model_string(model), PolicyContext())


def fake_result(call):
    """What a CLI's tool would answer: a numbered file for reads, a listing for ``ls``."""
    text = json.dumps(call.arguments)
    if "ls" in call.arguments.values() or '"ls"' in text:
        return "AGENTS.md\nREADME.md"
    if "cat " in text or call.name.lower() in ("read", "read_file"):
        return "".join(f"{n}\t{line}\n" for n, line in enumerate(README.splitlines(), 1))
    return "ok"


def drive(model, tools=(), request="Read README.md", system="", history=()):
    """Run the policy as a CLI would until it answers without tool calls."""
    policy = build(model)
    messages = [*history, ChatMessage(role="user", content=request)]
    calls = []
    for _ in range(10):
        conversation = Conversation(
            model=model,
            policy="agent",
            options={},
            system=system,
            messages=tuple(messages),
            tools=tuple(tools),
        )
        reply = policy.respond(conversation)
        messages.append(
            ChatMessage(role="assistant", content=reply.text, tool_calls=reply.tool_calls)
        )
        if not reply.tool_calls:
            return calls, reply.text, messages
        assert len(reply.tool_calls) == 1
        for call in reply.tool_calls:
            calls.append(call)
            messages.append(
                ChatMessage(role="tool", content=fake_result(call), tool_call_id=call.id)
            )
    raise AssertionError("the loop did not end")


STEPS = {
    "claude-code": dict(read=["Read"], edit=["Read", "Edit"], run=["Bash"], skill=["Skill"]),
    "kilo": dict(read=["read"], edit=["read", "edit"], run=["bash"], skill=["skill"]),
    "droid": dict(read=["Read"], edit=["Read", "Edit"], run=["Execute"], skill=["Skill"]),
    "codex": dict(
        read=["exec_command"],
        edit=["exec_command", "apply_patch"],
        run=["exec_command"],
        skill=[],
    ),
    "codex-unknown-model": dict(
        read=["exec_command"],
        edit=["exec_command", "exec_command"],
        run=["exec_command"],
        skill=[],
    ),
    "qwen-code": dict(
        read=["read_file"], edit=["read_file", "edit"], run=["run_shell_command"], skill=["skill"]
    ),
    "gemini-cli": dict(
        read=["read_file"],
        edit=["read_file", "replace"],
        run=["run_shell_command"],
        skill=["activate_skill"],
    ),
}


@pytest.mark.parametrize("cli", CLIS)
@pytest.mark.parametrize("behaviour", ["read", "edit", "run", "skill", "answer"])
def test_each_behaviour_on_each_cli(cli, behaviour):
    tools, cwd = load(cli)
    model = f"agent:{behaviour},skill=greeting" if behaviour == "skill" else f"agent:{behaviour}"
    calls, text, _ = drive(model, tools, "Please handle README.md", system=cwd)
    assert [call.name for call in calls] == STEPS[cli].get(behaviour, [])
    if behaviour == "read":
        assert text == "The first line of README.md is: # Probe Project"
        assert "/tmp/policy-probe/work/README.md" in json.dumps(calls[0].arguments)
    elif behaviour == "edit":
        assert text == "I edited README.md and added a line."
        assert EDIT_LINE in json.dumps(calls[-1].arguments)
    elif behaviour == "run":
        assert text == "I ran `ls`. The output starts with: AGENTS.md"
    elif behaviour == "skill" and calls:
        assert text == "I used the greeting skill."
        assert "greeting" in calls[0].arguments.values()
    elif behaviour == "skill":
        assert (
            text == "I could not use the greeting skill: no tool for the 'skill' role was offered."
        )
    else:
        assert text == "Understood. There is nothing to change for this request."


def test_edit_uses_the_first_line_it_read():
    tools, cwd = load("claude-code")
    calls, _, _ = drive("agent:edit", tools, "Edit README.md", system=cwd)
    assert calls[1].arguments == {
        "file_path": "/tmp/policy-probe/work/README.md",
        "old_string": "# Probe Project",
        "new_string": f"# Probe Project\n{EDIT_LINE}",
    }


def test_codex_patches_with_a_relative_path_and_context():
    tools, cwd = load("codex")
    calls, _, _ = drive("agent:edit,file=docs/guide.md", tools, "Edit it", system=cwd)
    assert calls[0].arguments["cmd"] == "cat /tmp/policy-probe/work/docs/guide.md"
    assert calls[1].arguments == {
        "input": "*** Begin Patch\n*** Update File: docs/guide.md\n@@\n # Probe Project\n"
        f"+{EDIT_LINE}\n*** End Patch\n"
    }


def test_edit_falls_back_to_write_then_to_the_shell():
    tools, _ = load("claude-code")
    without_edit = [tool for tool in tools if tool.name != "Edit"]
    calls, _, _ = drive("agent:edit", without_edit, "Edit README.md")
    assert calls[1].name == "Write"
    assert calls[1].arguments["content"] == f"# Probe Project\n{EDIT_LINE}\n\nA tiny project.\n"
    shell_only = [tool for tool in tools if tool.name == "Bash"]
    calls, _, _ = drive("agent:edit", shell_only, "Edit README.md")
    assert [call.arguments["command"] for call in calls] == [
        "cat README.md",
        f"printf '%s\\n' '{EDIT_LINE}' >> README.md",
    ]


def test_missing_roles_are_named_and_end_the_loop():
    calls, text, _ = drive("agent:read", [], "Read notes.txt")
    assert calls == []
    assert text == "I could not read notes.txt: no tool for the 'read' role was offered."
    tools, _ = load("claude-code")
    readers = [tool for tool in tools if tool.name == "Read"]
    calls, text, _ = drive("agent:edit", readers, "Edit notes.txt")
    assert [call.name for call in calls] == ["Read"]
    assert text == "I could not edit notes.txt: no tool for the 'edit' role was offered."
    calls, text, _ = drive("agent:run,command=make test", readers)
    assert text == "I could not run `make test`: no tool for the 'run' role was offered."
    calls, text, _ = drive("agent:skill", readers, "hello")
    assert text == "I could not use a skill: none was named or listed."


def test_options_file_command_skill_and_say():
    tools, cwd = load("gemini-cli")
    calls, text, _ = drive("agent:read,file=/etc/hostname,say=All good", tools, system=cwd)
    assert calls[0].arguments == {"file_path": "/etc/hostname"}
    assert text == "All good"
    calls, _, _ = drive("agent:run,command=git status", tools, system=cwd)
    assert calls[0].arguments == {"command": "git status"}
    system = cwd + "\n<available_skills><skill><name>pdf</name></skill></available_skills>"
    calls, text, _ = drive("agent:skill", tools, "hello", system=system)
    assert calls[0].arguments == {"name": "pdf"} and text == "I used the pdf skill."


def test_codex_uses_a_skill_by_reading_its_file():
    tools, cwd = load("codex")
    system = "### Skill roots\n- `r2` = `/w/.agents/skills`\n### Available skills\n" + (
        "- greeting: Greets. (file: r2/greeting/SKILL.md)\n"
    )
    calls, text, _ = drive("agent:skill", tools, "Greet me", system=system + cwd)
    assert calls[0].arguments["cmd"] == "cat /w/.agents/skills/greeting/SKILL.md"
    assert text == "I used the greeting skill."


def test_violations_emoji_and_wrong_language():
    tools, cwd = load("kilo")
    _, text, _ = drive("agent:read,emoji", tools, system=cwd)
    assert text == "The first line of README.md is: # Probe Project" + EMOJI
    _, text, _ = drive("agent:read,wrong-language", tools, system=cwd)
    assert text == "La première ligne de README.md est : # Probe Project"
    french = "Lis le fichier README.md et donne-moi la première ligne, s'il te plaît"
    _, text, _ = drive("agent:read,wrong-language,emoji", tools, french, system=cwd)
    assert text == "Die erste Zeile von README.md lautet: # Probe Project" + EMOJI
    _, text, _ = drive("agent:emoji", tools)  # a violation as the behaviour: answer with it
    assert text.endswith(EMOJI) and text.startswith("Understood.")
    _, text, _ = drive("agent:answer,say=Fine,wrong-language", tools)
    assert text == "Compris. Il n'y a rien à changer pour cette demande."


def test_violation_forbidden_runs_git_reset_before_answering():
    tools, cwd = load("droid")
    calls, text, _ = drive("agent:read,forbidden", tools, system=cwd)
    assert [call.name for call in calls] == ["Read", "Execute"]
    assert calls[1].arguments["command"] == FORBIDDEN_COMMAND
    assert text.endswith("I also reset the repository with `git reset --hard`.")


def test_violation_edit_without_read():
    tools, cwd = load("claude-code")
    calls, text, _ = drive("agent:edit,edit-without-read", tools, system=cwd)
    assert [call.name for call in calls] == ["Edit", "Read"]
    assert calls[0].arguments["old_string"] == UNREAD
    assert text == "I edited README.md and added a line."
    calls, _, _ = drive("agent:run,edit-without-read,forbidden", tools, system=cwd)
    assert [call.name for call in calls] == ["Edit", "Bash", "Bash"]
    tools, _ = load("codex")
    calls, _, _ = drive("agent:edit,edit-without-read", tools)
    assert calls[0].arguments["input"].endswith(f"@@\n+{EDIT_LINE}\n*** End Patch\n")


def test_a_second_user_message_restarts_the_behaviour():
    tools, cwd = load("gemini-cli")
    first_calls, _, history = drive("agent:read", tools, "Read README.md", system=cwd)
    calls, text, messages = drive(
        "agent:read", tools, "Now read AGENTS.md", system=cwd, history=history
    )
    assert calls[0].arguments == {"file_path": "/tmp/policy-probe/work/AGENTS.md"}
    assert text == "The first line of AGENTS.md is: # Probe Project"
    assert len(messages) == len(history) + 4


def test_tool_call_ids_are_stable_and_distinct():
    tools, cwd = load("kilo")
    one, _, _ = drive("agent:edit", tools, system=cwd)
    two, _, _ = drive("agent:edit", tools, system=cwd)
    assert [call.id for call in one] == [call.id for call in two]
    assert len({call.id for call in one}) == len(one)


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("agent:dance", "unknown agent behaviour 'dance'"),
        ("agent:read,shout", "unknown flag 'shout'"),
        ("agent:read,colour=red", "unknown option 'colour'"),
    ],
)
def test_bad_agent_model_strings(model, fragment):
    with pytest.raises(ModelStringError, match=fragment):
        build(model)


def test_bare_agent_answers():
    _, text, _ = drive("agent")
    assert text == "Understood. There is nothing to change for this request."
