"""Full agent loops against the real server, one per API shape, with each CLI's captured tools.

Each test plays the CLI: it sends the request with the tools, runs the tool call it gets
back (a fake file system), sends the result, and repeats until a plain text answer.
"""

import json
from pathlib import Path

import httpx

FIXTURES = Path(__file__).parents[2] / "unit" / "models" / "fixtures"
CWD = "/work/repo"
FILES = {f"{CWD}/README.md": "# Demo\n\nSome text.\n"}


def tools_of(cli):
    return json.loads((FIXTURES / f"tools-{cli}.json").read_text())["tools"]


def run_tool(name, arguments, files):
    """A tiny stand-in for the CLI's tools, enough for read, edit and run."""
    path = arguments.get("file_path") or arguments.get("filePath")
    if name in ("Read", "read", "read_file"):
        return "".join(f"{n}\t{line}\n" for n, line in enumerate(files[path].splitlines(), 1))
    if name in ("Edit", "edit", "replace"):
        old = arguments.get("old_string", arguments.get("oldString"))
        new = arguments.get("new_string", arguments.get("newString"))
        files[path] = files[path].replace(old, new, 1)
        return "The file was updated."
    if name == "apply_patch":
        files[f"{CWD}/README.md"] += "patched\n"
        return "Success."
    command = arguments.get("command") or arguments.get("cmd")
    if command.startswith("cat "):
        return "Output:\n" + files[command[4:]]
    return "README.md\nsrc\n"


def sse_data(text):
    return [
        json.loads(line[6:])
        for line in text.splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]


async def test_chat_completions_loop_with_kilo_tools(server):
    files = dict(FILES)
    tools = [{"type": "function", "function": t} for t in tools_of("kilo")]
    messages = [
        {"role": "system", "content": f"You are Kilo.\nWorking directory: {CWD}"},
        {"role": "user", "content": "Please edit README.md"},
    ]
    names = []
    async with httpx.AsyncClient(base_url=server.url) as http:
        for _ in range(6):
            body = {"model": "agent:edit", "messages": messages, "tools": tools}
            message = (await http.post("/v1/chat/completions", json=body)).json()["choices"][0][
                "message"
            ]
            messages.append(message)
            if not message.get("tool_calls"):
                break
            for call in message["tool_calls"]:
                name, arguments = (
                    call["function"]["name"],
                    json.loads(call["function"]["arguments"]),
                )
                names.append(name)
                result = run_tool(name, arguments, files)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    assert names == ["read", "edit"]
    assert message["content"] == "I edited README.md and added a line."
    assert files[f"{CWD}/README.md"].startswith("# Demo\nEdited by the scripted agent policy.\n")


async def test_anthropic_loop_with_claude_code_tools(server):
    files = dict(FILES)
    tools = [{"name": t["name"], "input_schema": t["parameters"]} for t in tools_of("claude-code")]
    system = [{"type": "text", "text": f" - Primary working directory: {CWD}"}]
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>CLAUDE.md: be kind</system-reminder>"},
                {"type": "text", "text": "Read README.md"},
            ],
        },
        {"role": "system", "content": "Skills: none."},
    ]
    names = []
    async with httpx.AsyncClient(base_url=server.url) as http:
        for _ in range(6):
            body = {
                "model": "agent:read,forbidden",
                "max_tokens": 1000,
                "system": system,
                "messages": messages,
                "tools": tools,
            }
            reply = (await http.post("/v1/messages", json=body)).json()
            messages.append({"role": "assistant", "content": reply["content"]})
            uses = [block for block in reply["content"] if block["type"] == "tool_use"]
            if not uses:
                break
            results = []
            for use in uses:
                names.append(use["name"])
                output = run_tool(use["name"], use["input"], files)
                results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output})
            reminder = {"type": "text", "text": "<system-reminder>todo</system-reminder>"}
            messages.append({"role": "user", "content": [*results, reminder]})
    assert names == ["Read", "Bash"]
    assert reply["stop_reason"] == "end_turn"
    assert reply["content"][0]["text"] == (
        "The first line of README.md is: # Demo "
        "I also reset the repository with `git reset --hard`."
    )


async def test_responses_loop_with_codex_tools_streaming(server):
    files = dict(FILES)
    tools = []
    for tool in tools_of("codex"):
        if "x-adhere-freeform" in tool["parameters"]:
            tools.append({"type": "custom", "name": tool["name"], "format": {"type": "grammar"}})
        else:
            tools.append({"type": "function", "name": tool["name"], **tool})
    items = [
        {"type": "message", "role": "developer", "content": "You are Codex."},
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": f"<environment_context>\n  <cwd>{CWD}</cwd>\n</environment_context>",
                }
            ],
        },
        {"type": "message", "role": "user", "content": "Edit README.md, emoji welcome"},
    ]
    names = []
    async with httpx.AsyncClient(base_url=server.url) as http:
        for _ in range(6):
            body = {"model": "agent:edit,emoji", "input": items, "tools": tools, "stream": True}
            reply = await http.post("/v1/responses", json=body)
            done = [e["item"] for e in sse_data(reply.text) if e["type"].endswith("item.done")]
            items.extend(done)
            calls = [item for item in done if item["type"] != "message"]
            if not calls:
                break
            for call in calls:
                names.append(call["name"])
                if call["type"] == "custom_tool_call":
                    output = run_tool(call["name"], {"input": call["input"]}, files)
                    kind = "custom_tool_call_output"
                else:
                    output = run_tool(call["name"], json.loads(call["arguments"]), files)
                    kind = "function_call_output"
                items.append({"type": kind, "call_id": call["call_id"], "output": output})
    assert names == ["exec_command", "apply_patch"]
    assert done[0]["content"][0]["text"] == "I edited README.md and added a line. 🎉✅"
    assert files[f"{CWD}/README.md"].endswith("patched\n")


async def test_gemini_loop_with_gemini_cli_tools_streaming(server):
    files = dict(FILES)
    declarations = [
        {"name": t["name"], "parametersJsonSchema": t["parameters"]} for t in tools_of("gemini-cli")
    ]
    contents = [
        {
            "role": "user",
            "parts": [
                {"text": f"<session_context>\n- **Workspace Directories:**\n  - {CWD}\n"},
                {"text": "</session_context>"},
                {"text": "Lance `ls` et dis-moi ce que tu vois, merci pour le coup de main"},
            ],
        }
    ]
    names = []
    url = "/v1beta/models/agent:run,wrong-language:streamGenerateContent?alt=sse"
    async with httpx.AsyncClient(base_url=server.url) as http:
        for _ in range(6):
            body = {
                "systemInstruction": {"parts": [{"text": "You are Gemini CLI."}]},
                "contents": contents,
                "tools": [{"functionDeclarations": declarations}],
            }
            reply = await http.post(url, json=body, headers={"x-goog-api-key": "any"})
            chunks = sse_data(reply.text)
            parts = [p for chunk in chunks for p in chunk["candidates"][0]["content"]["parts"]]
            contents.append({"role": "model", "parts": parts})
            calls = [part["functionCall"] for part in parts if "functionCall" in part]
            if not calls:
                break
            responses = []
            for call in calls:
                names.append(call["name"])
                output = run_tool(call["name"], call["args"], files)
                # Gemini CLI makes its own ids when none come back; the server pairs by name.
                answer = {"name": call["name"], "response": {"output": output}}
                responses.append({"functionResponse": answer})
            contents.append({"role": "user", "parts": responses})
    assert names == ["run_shell_command"]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    text = "".join(part.get("text", "") for part in parts)
    assert text == "Ich habe `ls` ausgeführt. Die Ausgabe beginnt mit: README.md"
