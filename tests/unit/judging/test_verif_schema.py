"""``tool_args_valid`` and ``no_invented_results``: every rule and every message."""

from adhere.core import ChatMessage, ToolSpec
from adhere.judging.verifiers._schema import schema_problems
from tests.unit.judging.test_verif_support import (
    S,
    act,
    call,
    ctx,
    obj,
    result,
    say,
    traj,
    user,
    verdict,
)

READ = ToolSpec(
    name="Read", parameters=obj({"file_path": S, "n": {"type": "integer"}}, ["file_path"])
)
LISTS = ToolSpec(
    name="Batch",
    parameters=obj({"items": {"type": "array", "items": obj({"id": {"type": "integer"}})}}),
)
BROKEN = ToolSpec(name="Weird", parameters={"type": "object", "properties": {"a": {"type": 3}}})
UNRESOLVABLE = ToolSpec(name="Ref", parameters={"$ref": "#/$defs/missing"})
RAW_OK = ToolSpec(name="Raw", parameters=obj({"_raw": S}))
TOOLS = [READ, LISTS, BROKEN, UNRESOLVABLE, RAW_OK]


def test_problems_are_listed_by_place_with_their_path() -> None:
    schema = LISTS.parameters
    problems = schema_problems(schema, {"items": [{"id": 1}, {"id": "x"}, {"id": 2.5}]})
    assert problems == [
        "arguments.items[1].id: 'x' is not of type 'integer'",
        "arguments.items[2].id: 2.5 is not of type 'integer'",
    ]
    assert schema_problems(READ.parameters, {}) == ["arguments: 'file_path' is a required property"]
    assert schema_problems(READ.parameters, {"file_path": "a"}) == []


def test_every_call_valid_passes_counting_the_calls() -> None:
    one = verdict("tool_args_valid", ctx(traj(act("", "Read", file_path="a"), tools=TOOLS)))
    assert (one.result, one.reasoning) == ("pass", "all 1 tool call valid")
    two = traj(act("", "Read", file_path="a"), act("", "Read", file_path="b", n=2), tools=TOOLS)
    assert verdict("tool_args_valid", ctx(two)).reasoning == "all 2 tool calls valid"
    none = verdict("tool_args_valid", ctx(traj(say("hi"), tools=TOOLS)))
    assert (none.result, none.reasoning) == ("n/a", "no tool call to check")


def test_unoffered_tools_fail_unless_allowed() -> None:
    trajectory = traj(act("", "Secret", x=1), tools=TOOLS)
    outcome = verdict("tool_args_valid", ctx(trajectory))
    assert (outcome.result, outcome.evidence) == ("fail", 0)
    assert outcome.reasoning == "message 0 Secret: the tool was never offered"
    assert verdict("tool_args_valid", ctx(trajectory), allow_unoffered=True).result == "pass"


def test_arguments_that_were_not_json_fail_unless_the_schema_declares_raw() -> None:
    trajectory = traj(act("", "Read", _raw="{file_path: a"), act("", "Raw", _raw="x"), tools=TOOLS)
    outcome = verdict("tool_args_valid", ctx(trajectory))
    assert outcome.reasoning == "message 0 Read: arguments are not valid JSON: {file_path: a"
    assert outcome.details["problems"] == [
        "message 0 Read: arguments are not valid JSON: {file_path: a"
    ]


def test_tools_with_unusable_schemas_are_skipped_and_named() -> None:
    trajectory = traj(
        act("", "Weird", a=1), act("", "Ref", a=1), act("", "Read", file_path="a"), tools=TOOLS
    )
    outcome = verdict("tool_args_valid", ctx(trajectory))
    assert outcome.result == "pass"
    assert outcome.reasoning == "all 3 tool calls valid (schema invalid, not checked: Ref, Weird)"
    failing = traj(act("", "Weird", a=1), act("", "Read"), tools=TOOLS)
    outcome = verdict("tool_args_valid", ctx(failing))
    assert outcome.reasoning == (
        "message 2 Read: arguments: 'file_path' is a required property "
        "(schema invalid, not checked: Weird)"
    )


def test_five_problems_are_named_then_how_many_more() -> None:
    calls = [act("", "Read") for _ in range(7)]
    outcome = verdict("tool_args_valid", ctx(traj(*calls, tools=TOOLS)))
    assert outcome.reasoning.endswith(
        "message 8 Read: arguments: 'file_path' is a required property; and 2 more"
    )
    assert outcome.reasoning.count("required property") == 5
    assert len(outcome.details["problems"]) == 7
    six = verdict("tool_args_valid", ctx(traj(*calls[:6], tools=TOOLS)))
    assert six.reasoning.endswith("; and 1 more")
    five = verdict("tool_args_valid", ctx(traj(*calls[:5], tools=TOOLS)))
    assert not five.reasoning.endswith("more")


def test_only_the_named_tools_are_checked() -> None:
    trajectory = traj(act("", "Secret", x=1), act("", "Read"), tools=TOOLS)
    assert verdict("tool_args_valid", ctx(trajectory), tools=["Secret"]).result == "fail"
    only_ok = verdict("tool_args_valid", ctx(trajectory), tools=["Other"])
    assert only_ok.result == "n/a"


def test_sub_agents_calls_are_checked_against_their_own_tools_when_asked() -> None:
    sub = traj(act("", "Read"), tools=[READ])
    trajectory = traj(say("Delegating."), subagents=[sub], tools=TOOLS)
    assert verdict("tool_args_valid", ctx(trajectory)).result == "n/a"
    outcome = verdict("tool_args_valid", ctx(trajectory), include_subagents=True)
    assert outcome.result == "fail" and outcome.evidence is None
    assert outcome.reasoning.startswith("sub-agent 0, message 0 Read: arguments:")
    other = traj(act("", "Read", file_path="a"), tools=[])  # its own tools: Read not offered
    outcome = verdict("tool_args_valid", ctx(traj(say("x"), subagents=[other], tools=TOOLS)),
                      include_subagents=True)  # fmt: skip
    assert outcome.reasoning == "sub-agent 0, message 0 Read: the tool was never offered"


def test_results_answering_real_calls_and_clean_replies_pass() -> None:
    made = call("Read", file_path="a")
    trajectory = traj(say("Reading.", made), result(made), say("Done."))
    outcome = verdict("no_invented_results", ctx(trajectory))
    assert outcome.result == "pass"
    assert (
        outcome.reasoning
        == "all 1 tool result answer calls made earlier; no tool-result markup in 2 replies"
    )
    silent = call("Read", file_path="b")
    quiet = traj(say("", silent))  # a call without text: no reply, still something to judge
    assert verdict("no_invented_results", ctx(quiet)).reasoning == (
        "all 0 tool results answer calls made earlier; no tool-result markup in 0 replies"
    )
    one = verdict("no_invented_results", ctx(traj(say("Done."))))
    assert one.reasoning.endswith("in 1 reply")


def test_a_result_for_a_call_never_made_fails() -> None:
    orphan = ChatMessage(role="tool", content="ok", tool_call_id="c9", name="Bash")
    nameless = ChatMessage(role="tool", content="ok", tool_call_id="c8")
    later = call("Read", file_path="a")
    early_result = ChatMessage(role="tool", content="x", tool_call_id=later.id)
    trajectory = traj(say("Hi."), orphan, nameless, early_result, say("", later))
    outcome = verdict("no_invented_results", ctx(trajectory))
    assert (outcome.result, outcome.evidence) == ("fail", 1)
    assert (
        outcome.reasoning
        == "message 1: tool result (Bash) for call 'c9', which was never made; and 2 more"
    )
    assert (
        outcome.details["problems"][1]
        == "message 2: tool result for call 'c8', which was never made"
    )


def test_tool_result_markup_in_a_reply_fails_outside_code() -> None:
    for markup in ("<tool_result>x</tool_result>", "[TOOL_RESULTS]", '{"type": "tool_result"}',
                   "<|tool_response|>", "<|start_header_id|>ipython"):  # fmt: skip
        outcome = verdict("no_invented_results", ctx(traj(say(f"Done. {markup}"))))
        assert outcome.result == "fail", markup
        assert outcome.reasoning.startswith('message 0: the assistant wrote tool-result markup "')
    quoted = traj(say("Use `<tool_result>` tags.\n```\n<function_results>\n```"))
    assert verdict("no_invented_results", ctx(quoted)).result == "pass"


def test_nothing_to_judge_is_n_a() -> None:
    outcome = verdict("no_invented_results", ctx(traj(user("hi"), say(""))))
    assert (outcome.result, outcome.reasoning) == (
        "n/a",
        "the assistant neither replied nor called a tool",
    )


def test_long_problems_are_cut_to_their_snippet_length() -> None:
    """A schema error is shown in at most 160 characters, raw arguments in 80."""
    choices = [f"choice_number_{n:02d}" for n in range(12)]
    enum = ToolSpec(name="Pick", parameters=obj({"k": {"enum": choices}}))
    problem = schema_problems(enum.parameters, {"k": "x"})[0]
    message = problem.removeprefix("arguments.k: ")
    assert len(message) == 160 and message.endswith("…")
    raw = "{" + "y" * 100
    outcome = verdict("tool_args_valid", ctx(traj(act("", "Read", _raw=raw), tools=TOOLS)))
    shown = outcome.reasoning.removeprefix("message 0 Read: arguments are not valid JSON: ")
    assert shown == raw[:79] + "…"


def test_a_key_named_raw_among_real_arguments_is_an_argument() -> None:
    """Only ``{"_raw": …}`` alone is the normalizer's mark of arguments that were not JSON."""
    trajectory = traj(act("", "Read", file_path="a", _raw="x"), tools=TOOLS)
    assert verdict("tool_args_valid", ctx(trajectory)).result == "pass"


def test_eleven_problems_are_five_named_and_six_more() -> None:
    calls = [act("", "Read") for _ in range(11)]
    outcome = verdict("tool_args_valid", ctx(traj(*calls, tools=TOOLS)))
    assert outcome.reasoning.endswith("; and 6 more")


def test_invented_results_count_the_problems_after_the_first() -> None:
    orphan = ChatMessage(role="tool", content="ok", tool_call_id="c9")
    one = verdict("no_invented_results", ctx(traj(say("Hi."), orphan)))
    assert one.reasoning == "message 1: tool result for call 'c9', which was never made"
    two = verdict("no_invented_results", ctx(traj(say("Hi."), orphan, orphan)))
    assert two.reasoning.endswith("which was never made; and 1 more")


def test_replies_after_a_pure_tool_call_are_still_read() -> None:
    made = call("Read", file_path="a")
    trajectory = traj(say("", made), result(made), say("Done. <tool_result>x</tool_result>"))
    outcome = verdict("no_invented_results", ctx(trajectory))
    assert (outcome.result, outcome.evidence) == ("fail", 2)


def test_a_pass_counts_several_results() -> None:
    first, second = call("Read", file_path="a"), call("Read", file_path="b")
    trajectory = traj(say("", first), result(first), say("", second), result(second), say("ok"))
    assert verdict("no_invented_results", ctx(trajectory)).reasoning == (
        "all 2 tool results answer calls made earlier; no tool-result markup in 1 reply"
    )
