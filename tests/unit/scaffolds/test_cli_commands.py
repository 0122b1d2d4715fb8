"""What each CLI adapter builds for a trial: argv, environment, config files, output parsing."""

import json
import tomllib
from pathlib import Path

import pytest

from adhere.core import Check, Instance, Source
from adhere.scaffolds import ProxyEndpoint, TrialContext, get_scaffold
from adhere.scaffolds._droid import platform_package

HOME = Path("/trial/home")
WORK = Path("/trial/work")
EXE = Path("/cache/tool/node_modules/.bin/tool")
BASE = "http://127.0.0.1:8080/t/trial-1"


def context(system_prompt="Be brief.", api="openai-chat", model="model-x"):
    instance = Instance(
        id="i1",
        suite="unit",
        system_prompt=system_prompt,
        turns=["first question", "second question"],
        checks=[Check(id="c", source=Source.USER_QUERY, description="d")],
    )
    return TrialContext(
        trial_id="trial-1",
        instance=instance,
        workdir=WORK,
        home=HOME,
        endpoint=ProxyEndpoint(base_url=BASE, model=model, api=api, api_key="sk-dummy"),
        timeout_seconds=60,
        cache_dir=Path("/cache"),
    )


def argv(name, turn, session=None, ctx=None, **options):
    ctx = ctx or context()
    scaffold = get_scaffold(name, **options)
    prompt = ctx.instance.turns[turn]
    invocation = scaffold.invocation(ctx, EXE, turn, prompt, session)
    return invocation


# -- Claude Code ------------------------------------------------------------------


def test_claude_code_commands():
    first = argv("claude-code", 0)
    assert first.argv == (
        str(EXE),
        "-p",
        "--output-format",
        "json",
        "--model",
        "model-x",
        "--dangerously-skip-permissions",
        "--system-prompt=Be brief.",
        "--",
        "first question",
    )
    assert first.stdin is None
    later = argv("claude-code", 1, session="s-1")
    assert later.argv[-4:] == ("--system-prompt=Be brief.", "-c", "--", "second question")


def test_claude_code_append_mode_and_no_system_prompt():
    assert (
        "--append-system-prompt=Be brief."
        in argv("claude-code", 0, system_prompt_mode="append").argv
    )
    bare = argv("claude-code", 0, ctx=context(system_prompt=""))
    assert not any("system-prompt" in arg for arg in bare.argv)


def test_claude_code_environment():
    scaffold = get_scaffold("claude-code")
    scaffold.as_root = False
    env = scaffold.environment(context(api="anthropic"))
    assert env == {
        "ANTHROPIC_BASE_URL": BASE,
        "ANTHROPIC_API_KEY": "sk-dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    scaffold.as_root = True
    assert scaffold.environment(context())["IS_SANDBOX"] == "1"
    assert scaffold.config_files(context()) == {}


def test_claude_code_output():
    scaffold = get_scaffold("claude-code")
    out = '{"type":"result","is_error":false,"result":"The notes say 42.","session_id":"abc"}\n'
    parsed = scaffold.parse_output(out)
    assert (parsed.text, parsed.session) == ("The notes say 42.", "abc")
    assert scaffold.parse_output("not json").text == ""


# -- Kilo ---------------------------------------------------------------------------


def test_kilo_commands_put_the_prompt_on_stdin():
    first = argv("kilo", 0)
    assert first.argv == (str(EXE), "run", "--auto", "--format", "json", "-m", "adhere/model-x")
    assert first.stdin == "first question"
    assert argv("kilo", 1).argv[-1] == "-c"


def test_kilo_configuration():
    scaffold = get_scaffold("kilo")
    ctx = context()
    env = scaffold.environment(ctx)
    config = json.loads(env.pop("KILO_CONFIG_CONTENT"))
    assert env == {
        "KILO_TELEMETRY_LEVEL": "off",
        "KILO_DISABLE_MODELS_FETCH": "1",
        "KILO_DISABLE_AUTOUPDATE": "1",
    }
    provider = config["provider"]["adhere"]
    assert provider["npm"] == "@ai-sdk/openai-compatible"
    assert provider["options"] == {"baseURL": BASE + "/v1", "apiKey": "sk-dummy"}
    assert provider["models"] == {"model-x": {"name": "model-x"}}
    assert config["enabled_providers"] == ["adhere"]
    assert config["share"] == "disabled"
    assert config["autoupdate"] is False
    prompt_file = HOME / ".config/adhere/system-prompt.md"
    assert config["instructions"] == [str(prompt_file)]
    assert scaffold.config_files(ctx) == {prompt_file: "Be brief."}
    bare = context(system_prompt="")
    assert "instructions" not in scaffold.config(bare)
    assert scaffold.config_files(bare) == {}


def test_kilo_output():
    events = [
        {"type": "step_start", "sessionID": "ses_1", "part": {"type": "step-start"}},
        {"type": "text", "sessionID": "ses_1", "part": {"type": "text", "text": "Reading."}},
        {"type": "tool_use", "sessionID": "ses_1", "part": {"type": "tool"}},
        {"type": "text", "sessionID": "ses_1", "part": {"type": "text", "text": "Done."}},
    ]
    stdout = "\n".join(json.dumps(e) for e in events) + "\nnoise\n"
    parsed = get_scaffold("kilo").parse_output(stdout)
    assert (parsed.text, parsed.session) == ("Done.", "ses_1")


# -- Droid ---------------------------------------------------------------------------


def test_droid_commands_fork_the_previous_session():
    settings = str(HOME / ".factory/adhere-settings.json")
    first = argv("droid", 0)
    assert first.argv == (
        str(EXE),
        "exec",
        "--settings",
        settings,
        "--auto",
        "high",
        "-m",
        "custom:adhere-0",
        "-o",
        "json",
        "--append-system-prompt=Be brief.",
        "--",
        "first question",
    )
    later = argv("droid", 1, session="sess-1")
    assert later.argv[-4:] == ("--fork", "sess-1", "--", "second question")
    assert argv("droid", 1, session=None) is None


@pytest.mark.parametrize(
    ("provider", "base"), [("generic-chat-completion-api", BASE + "/v1"), ("anthropic", BASE)]
)
def test_droid_settings(provider, base):
    scaffold = get_scaffold("droid", provider=provider, max_output_tokens=1000)
    files = scaffold.config_files(context())
    (path,) = files
    assert path == HOME / ".factory/adhere-settings.json"
    assert json.loads(files[path]) == {
        "customModels": [
            {
                "model": "model-x",
                "displayName": "adhere",
                "baseUrl": base,
                "apiKey": "sk-dummy",
                "provider": provider,
                "maxOutputTokens": 1000,
            }
        ]
    }
    assert scaffold.environment(context()) == {"FACTORY_AIRGAP_ENABLED": "1"}


def test_droid_platform_package_names():
    assert platform_package("Linux", "x86_64") == "@factory/cli-linux-x64"
    assert platform_package("Linux", "aarch64") == "@factory/cli-linux-arm64"
    assert platform_package("Darwin", "arm64") == "@factory/cli-darwin-arm64"


def test_droid_output():
    out = '{"type":"result","result":"Hi.","session_id":"d-1","num_turns":2}'
    parsed = get_scaffold("droid").parse_output(out)
    assert (parsed.text, parsed.session) == ("Hi.", "d-1")


# -- Codex ---------------------------------------------------------------------------

FLAGS = ("--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox")


def test_codex_commands_resume_the_thread():
    assert argv("codex", 0).argv == (
        str(EXE),
        "exec",
        *FLAGS,
        "-m",
        "model-x",
        "--",
        "first question",
    )
    assert argv("codex", 1, session="th-1").argv == (
        str(EXE),
        "exec",
        "resume",
        *FLAGS,
        "-m",
        "model-x",
        "--",
        "th-1",
        "second question",
    )
    assert argv("codex", 1).argv[:4] == (str(EXE), "exec", "resume", "--last")


def test_codex_config_is_valid_toml():
    tricky = 'Quote " backslash \\ newline\n tab\t DEL\x7f emoji \U0001f600 "end"'
    scaffold = get_scaffold("codex")
    files = scaffold.config_files(context(system_prompt=tricky))
    (path,) = files
    assert path == HOME / ".codex/config.toml"
    config = tomllib.loads(files[path])
    assert config["model"] == "model-x"
    assert config["model_provider"] == "adhere"
    assert config["approval_policy"] == "never"
    assert config["sandbox_mode"] == "danger-full-access"
    assert config["developer_instructions"] == tricky
    assert config["model_providers"]["adhere"] == {
        "name": "adhere",
        "base_url": BASE + "/v1",
        "env_key": "ADHERE_CODEX_API_KEY",
        "wire_api": "responses",
    }
    assert config["features"] == {"plugins": False, "remote_plugin": False}
    assert config["analytics"] == {"enabled": False}
    assert config["feedback"] == {"enabled": False}
    bare = tomllib.loads(scaffold.config_toml(context(system_prompt="")))
    assert "developer_instructions" not in bare
    assert scaffold.environment(context()) == {
        "CODEX_HOME": str(HOME / ".codex"),
        "ADHERE_CODEX_API_KEY": "sk-dummy",
    }


def test_codex_output():
    events = [
        {"type": "thread.started", "thread_id": "th-9"},
        {"type": "item.completed", "item": {"type": "error", "message": "metadata"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "One."}},
        {"type": "item.completed", "item": {"type": "command_execution", "command": "ls"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "Two."}},
        {"type": "turn.completed"},
    ]
    parsed = get_scaffold("codex").parse_output("\n".join(json.dumps(e) for e in events))
    assert (parsed.text, parsed.session) == ("Two.", "th-9")


# -- Qwen Code -----------------------------------------------------------------------


def test_qwen_code_commands():
    assert argv("qwen-code", 0).argv == (
        str(EXE),
        "--yolo",
        "-o",
        "json",
        "-m",
        "model-x",
        "--append-system-prompt=Be brief.",
        "--prompt=first question",
    )
    later = argv("qwen-code", 1, system_prompt_mode="replace")
    assert later.argv[-3:] == ("--system-prompt=Be brief.", "-c", "--prompt=second question")


def test_qwen_code_configuration():
    scaffold = get_scaffold("qwen-code", context_file_names=["AGENTS.md", "CLAUDE.md"])
    files = scaffold.config_files(context())
    settings = json.loads(files[HOME / ".qwen/settings.json"])
    assert settings["security"] == {"auth": {"selectedType": "openai"}}
    assert settings["privacy"] == {"usageStatisticsEnabled": False}
    assert settings["telemetry"] == {"enabled": False}
    assert settings["general"] == {"enableAutoUpdate": False}
    assert settings["memory"] == {"enableManagedAutoMemory": False}
    assert settings["context"] == {"fileName": ["AGENTS.md", "CLAUDE.md"]}
    assert "context" not in get_scaffold("qwen-code").settings(context())
    assert scaffold.environment(context()) == {
        "OPENAI_API_KEY": "sk-dummy",
        "OPENAI_BASE_URL": BASE + "/v1",
    }


def test_qwen_code_output():
    events = [
        {"type": "system", "subtype": "init", "session_id": "q-1"},
        {"type": "assistant", "session_id": "q-1", "message": {"content": []}},
        {"type": "result", "subtype": "success", "session_id": "q-1", "result": "Done."},
    ]
    parsed = get_scaffold("qwen-code").parse_output(json.dumps(events))
    assert (parsed.text, parsed.session) == ("Done.", "q-1")


# -- Gemini CLI ----------------------------------------------------------------------


def test_gemini_cli_commands():
    base = (str(EXE), "--skip-trust", "--yolo", "-m", "model-x", "-o", "json")
    assert argv("gemini-cli", 0).argv == (*base, "--prompt=first question")
    assert argv("gemini-cli", 1).argv == (*base, "--resume", "latest", "--prompt=second question")


def test_gemini_cli_appends_the_system_prompt_as_global_context():
    scaffold = get_scaffold("gemini-cli")
    files = scaffold.config_files(context())
    settings = json.loads(files[HOME / ".gemini/settings.json"])
    assert settings == {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }
    assert files[HOME / ".gemini/GEMINI.md"] == "Be brief."
    assert scaffold.environment(context()) == {
        "GEMINI_API_KEY": "sk-dummy",
        "GOOGLE_GEMINI_BASE_URL": BASE,
    }
    named = get_scaffold("gemini-cli", context_file_names=["AGENTS.md"])
    assert HOME / ".gemini/AGENTS.md" in named.config_files(context())


def test_gemini_cli_replaces_the_system_prompt_when_asked():
    scaffold = get_scaffold("gemini-cli", system_prompt_mode="replace")
    files = scaffold.config_files(context())
    assert files[HOME / ".gemini/system.md"] == "Be brief."
    assert scaffold.environment(context())["GEMINI_SYSTEM_MD"] == str(HOME / ".gemini/system.md")
    assert "GEMINI_SYSTEM_MD" not in scaffold.environment(context(system_prompt=""))


def test_gemini_cli_output():
    out = 'Warning: something\n{\n  "session_id": "g-1",\n  "response": "Hi.",\n  "stats": {}\n}\n'
    parsed = get_scaffold("gemini-cli").parse_output(out)
    assert (parsed.text, parsed.session) == ("Hi.", "g-1")


# -- every CLI -----------------------------------------------------------------------

CLIS = ["claude-code", "kilo", "droid", "codex", "qwen-code", "gemini-cli"]


@pytest.mark.parametrize("name", CLIS)
def test_process_environment_is_minimal(name, monkeypatch):
    monkeypatch.setenv("ADHERE_UNIT_SECRET", "do-not-leak")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-real-key")
    scaffold = get_scaffold(name, extra_env={"EXTRA_FLAG": "1"})
    env = scaffold.process_env(context(), EXE)
    assert "ADHERE_UNIT_SECRET" not in env
    assert "sk-real-key" not in env.values()
    assert env["HOME"] == str(HOME)
    assert env["TMPDIR"] == str(HOME / "tmp")
    assert env["EXTRA_FLAG"] == "1"
    path = env["PATH"].split(":")
    assert path[0] == str(EXE.parent)
    assert "/usr/bin" in path
    base = {"PATH", "HOME", "LANG", "LC_ALL", "TERM", "NO_COLOR", "TMPDIR", "EXTRA_FLAG"}
    assert set(env) - base == set(scaffold.environment(context()))


@pytest.mark.parametrize("name", CLIS)
def test_extra_args_come_before_the_prompt(name):
    invocation = argv(name, 0, extra_args=["--verbose"])
    assert "--verbose" in invocation.argv
    if invocation.stdin is None:
        position = invocation.argv.index("--verbose")
        assert position < len(invocation.argv) - 1


@pytest.mark.parametrize("name", CLIS)
def test_tool_is_pinned(name):
    tool = get_scaffold(name).tool
    assert tool.name == name
    assert all("@" in spec[1:] for spec in tool.packages)
    assert tool.directory(Path("/c")) == Path(f"/c/{name}-{tool.version}")
    assert tool.executable(Path("/c")).parent == Path(f"/c/{name}-{tool.version}/node_modules/.bin")
