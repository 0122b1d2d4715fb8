from adhere.artifacts import ProxyCall
from adhere.core import TOOLS_INDEX, Check, Instance, Source
from adhere.observe._normalize import Truncation, normalize
from adhere.observe._tagging import find_text, tag_sources

CLAUDE_MD = "# Rules\nAlways answer in English.\nNever use emoji."
QUERY = "Explain what partition() does."


def recorded(**fields):
    """A call record with the fields a test cares about; the rest as a plain call."""
    base = {
        "seq": 0,
        "trial": "t",
        "upstream": "m",
        "api": "anthropic",
        "method": "POST",
        "path": "/",
        "query": "",
        "stream": False,
        "request": None,
        "status": None,
        "response": None,
        "sse_events": 0,
        "error": None,
        "started_at": "2025-01-01T00:00:00+00:00",
        "duration_seconds": 1.0,
        "ttfb_seconds": None,
        "usage": None,
    }
    return ProxyCall(**{**base, **fields})


def anthropic_call(
    seq, messages, reply_blocks, *, system="You are a CLI agent.", status=200, tools=True
):
    request = {"model": "m", "system": [{"type": "text", "text": system}], "messages": messages}
    if tools:
        request["tools"] = [
            {
                "name": "Read",
                "description": "read a file",
                "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
            }
        ]
    response = {"content": reply_blocks, "role": "assistant"} if status == 200 else None
    return recorded(
        seq=seq,
        api="anthropic",
        request=request,
        response=response,
        status=status,
        error=None if status == 200 else "upstream 503",
    )


def claude_like_log():
    first_user = {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": (
                    f"<system-reminder>\nContents of /w/CLAUDE.md:\n{CLAUDE_MD}\n</system-reminder>"
                ),
            },
            {"type": "text", "text": QUERY},
        ],
    }
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/p.py"}}
    result = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "def partition(): ...\n" * 800}
        ],
    }
    return [
        anthropic_call(0, [first_user], [{"type": "thinking", "thinking": "look at file"}, call]),
        # an auxiliary call (title generation) interleaved
        anthropic_call(
            1,
            [{"role": "user", "content": "Write a 5-word title for: " + QUERY[:10]}],
            [{"type": "text", "text": "Partition explained"}],
            system="titles",
            tools=False,
        ),
        anthropic_call(
            2, [first_user, {"role": "assistant", "content": [call]}, result], [], status=503
        ),
        anthropic_call(
            3,
            [first_user, {"role": "assistant", "content": [call]}, result],
            [{"type": "text", "text": "partition splits a list."}],
        ),
    ]


def test_prefix_duplicates_merge_and_auxiliary_calls_stay_apart():
    traj = normalize(claude_like_log(), first_user_turn=QUERY)
    assert [m.role for m in traj.messages] == ["user", "assistant", "tool", "assistant"]
    assert traj.meta["calls"] == [0, 2, 3]
    assert traj.meta["assistant_turns"] == 2
    assert traj.meta["failed_calls"] == [{"seq": 2, "status": 503, "error": "upstream 503"}]
    assert traj.messages[1].reasoning == "look at file"
    assert traj.messages[2].name == "Read"  # tool result paired with its call
    assert traj.messages[-1].content == "partition splits a list."
    assert [t.name for t in traj.tools] == ["Read"]
    assert (
        len(traj.subagents) == 1 and traj.subagents[0].messages[-1].content == "Partition explained"
    )


def test_long_tool_output_is_truncated_with_marker():
    traj = normalize(
        claude_like_log(),
        first_user_turn=QUERY,
        truncation=Truncation(max_chars=500, head=200, tail=100),
    )
    text = traj.messages[2].content
    assert len(text) < 600 and "truncated" in text and "raw call log" in text
    assert text.startswith("def partition()")


def test_openai_chat_with_tools_and_system():
    req = {
        "messages": [
            {"role": "system", "content": "SP text\n\nInstructions from: /w/AGENTS.md\nUse tabs."},
            {"role": "user", "content": [{"type": "text", "text": QUERY}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path": "a"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "file body"},
        ],
        "tools": [
            {"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}
        ],
    }
    resp = {
        "choices": [
            {"message": {"role": "assistant", "content": "done", "reasoning_content": "hmm"}}
        ]
    }
    traj = normalize(
        [recorded(api="openai-chat", request=req, response=resp, status=200)],
        first_user_turn=QUERY,
    )
    assert traj.system.startswith("SP text")
    assert [m.role for m in traj.messages] == ["user", "assistant", "tool", "assistant"]
    assert traj.messages[1].tool_calls[0].arguments == {"path": "a"}
    assert traj.messages[2].name == "read" and traj.messages[-1].reasoning == "hmm"


def test_responses_api_items():
    req = {
        "instructions": "base instructions",
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "dev rules"}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "# AGENTS.md instructions for /w\nUse tabs."}
                ],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": QUERY}]},
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}]},
            {
                "type": "function_call",
                "call_id": "k1",
                "name": "shell",
                "arguments": '{"command": ["ls"]}',
            },
            {"type": "function_call_output", "call_id": "k1", "output": "a.py"},
        ],
        "tools": [
            {"type": "function", "name": "shell", "parameters": {"type": "object"}},
            {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}},
        ],
    }
    resp = {
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}],
            }
        ]
    }
    traj = normalize(
        [recorded(api="openai-responses", request=req, response=resp, status=200)],
        first_user_turn=QUERY,
    )
    assert traj.system == "base instructions\n\ndev rules"
    assert [m.role for m in traj.messages] == ["user", "user", "assistant", "tool", "assistant"]
    assert (
        traj.messages[2].tool_calls[0].arguments == {"command": ["ls"]}
        and traj.messages[2].reasoning == "think"
    )
    assert traj.messages[3].name == "shell"
    assert [t.name for t in traj.tools] == ["shell", "apply_patch"]


def test_gemini_function_calls_pair_by_name():
    req = {
        "systemInstruction": {"parts": [{"text": "gemini sys"}]},
        "contents": [
            {"role": "user", "parts": [{"text": QUERY}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "read_file", "args": {"absolute_path": "/w/a"}}}
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "read_file", "response": {"output": "body"}}}
                ],
            },
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "read_file", "parametersJsonSchema": {"type": "object"}}
                ]
            }
        ],
    }
    resp = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "thought", "thought": True}, {"text": "answer"}],
                }
            }
        ]
    }
    traj = normalize(
        [recorded(api="gemini", request=req, response=resp, status=200)], first_user_turn=QUERY
    )
    assert traj.system == "gemini sys"
    assert [m.role for m in traj.messages] == ["user", "assistant", "tool", "assistant"]
    assert traj.messages[2].tool_call_id == traj.messages[1].tool_calls[0].id
    assert traj.messages[2].name == "read_file" and traj.messages[2].content == "body"
    assert traj.messages[-1].content == "answer" and traj.messages[-1].reasoning == "thought"
    assert traj.meta["unanswered_tool_calls"] == [] and traj.meta["orphan_tool_results"] == []


def test_garbage_records_never_crash():
    records = [
        recorded(api="anthropic", request={"_raw": "not json"}),
        recorded(api="openai-chat", request=None),
        recorded(
            api="anthropic",
            request={"messages": [{"role": "user", "content": [{"type": "image"}]}]},
            response=None,
            status=None,
            error="connection refused",
        ),
    ]
    traj = normalize(records)
    assert traj.meta["recorded_calls"] == 3
    assert traj.messages[0].content == "[image]"
    assert traj.meta["failed_calls"][0]["error"] == "connection refused"


def instance(**kw) -> Instance:
    return Instance(
        id="i",
        suite="octobench",
        turns=[QUERY],
        checks=[Check(id="c", source=Source.SYSTEM_PROMPT, description="d")],
        **kw,
    )


def test_tagging_finds_sources_by_content():
    traj = normalize(claude_like_log(), first_user_turn=QUERY)
    files = {
        "CLAUDE.md": CLAUDE_MD.replace("\n", "\n\n"),  # whitespace differs from what was sent
        "src/p.py": "def partition(): ...",
    }
    spans = tag_sources(traj, instance(), files)
    by_source = {}
    for s in spans:
        by_source.setdefault(s.source, []).append(s)
    agents = by_source[Source.AGENTS_MD][0]
    assert agents.message_index == 0 and agents.label == "CLAUDE.md"
    assert traj.messages[0].content[agents.start : agents.end].startswith("# Rules")
    reminder = by_source[Source.SYSTEM_REMINDER][0]
    assert reminder.start <= agents.start and agents.end <= reminder.end  # nested
    query = by_source[Source.USER_QUERY][0]
    assert traj.messages[0].content[query.start : query.end] == QUERY
    assert by_source[Source.SYSTEM_PROMPT][0].label == "scaffold"
    assert (
        by_source[Source.TOOL_SCHEMA][0].message_index == TOOLS_INDEX
        and by_source[Source.TOOL_SCHEMA][0].label == "Read"
    )
    assert Source.SKILL_MD not in by_source  # p.py is not a policy file


def test_instance_system_prompt_tagged_inside_scaffold_prompt():
    log = claude_like_log()
    log[0].request["system"] = [{"type": "text", "text": "You are a CLI agent.\nAlways be brief."}]
    traj = normalize(log[:1], first_user_turn=QUERY)
    spans = tag_sources(traj, instance(system_prompt="Always be brief."), {})
    sp = [s for s in spans if s.source == Source.SYSTEM_PROMPT]
    assert (
        len(sp) == 1
        and sp[0].label == "instance"
        and traj.system[sp[0].start : sp[0].end] == "Always be brief."
    )


def test_find_text():
    assert find_text("abc  def\nghi", "def ghi") == (5, 12)
    assert find_text("abc", "") is None
    assert find_text("abc", "xyz") is None


def test_skill_text_loaded_through_a_tool_is_tagged():
    skill = "# Changelog skill\n\n1. Open CHANGELOG.md.\n2. Add one bullet under Unreleased."
    first = {"role": "user", "content": QUERY}
    call = {"type": "tool_use", "id": "s1", "name": "Skill", "input": {"skill": "changelog"}}
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "s1", "content": skill}],
    }
    log = [
        anthropic_call(0, [first], [call]),
        anthropic_call(
            1,
            [first, {"role": "assistant", "content": [call]}, result],
            [{"type": "text", "text": "done"}],
        ),
    ]
    traj = normalize(log, first_user_turn=QUERY)
    spans = tag_sources(
        traj, instance(), {".claude/skills/changelog/SKILL.md": skill, "CLAUDE.md": skill}
    )
    tagged = [
        (s.source, s.message_index, s.label)
        for s in spans
        if s.source in (Source.SKILL_MD, Source.AGENTS_MD)
    ]
    # the skill is found in the tool result; a policy file read through a tool is not an injection
    assert tagged == [(Source.SKILL_MD, 2, ".claude/skills/changelog/SKILL.md")]
