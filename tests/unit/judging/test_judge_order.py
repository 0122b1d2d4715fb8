"""Prefix ordering of a trial's judge calls: first alone, a shared prefix, the same verdicts."""

import asyncio
import json

from adhere.core._chat import ChatMessage, ToolCall
from adhere.core._types import Check, Source, Trajectory
from adhere.judging._judge import judge_trial
from adhere.judging._panel import PanelJudge, endpoint_key, panel_judges, run_panel
from adhere.judging._prefix import PrefixGate
from adhere.judging._prompt import END_TRANSCRIPT, JUDGE_SYSTEM, read_checklist
from adhere.spec._resources import JudgePanelSpec

SOURCES = [Source.SYSTEM_PROMPT, Source.AGENTS_MD, Source.USER_QUERY, Source.TOOL_SCHEMA]


def trajectory(task="Fix the bug."):
    return Trajectory(
        system="Be brief. Run the tests after every change.",
        messages=[
            ChatMessage(role="user", content=task),
            ChatMessage(
                role="assistant",
                content="Reading.",
                tool_calls=(ToolCall(id="t1", name="read", arguments={"path": "a.py"}),),
            ),
            ChatMessage(role="tool", content="x = 1", tool_call_id="t1", name="read"),
            ChatMessage(role="assistant", content="Fixed."),
        ],
    )


def checks(n):
    return [
        Check(id=f"c{i:03d}", source=SOURCES[i % 4], description=f"Rule {i}.") for i in range(n)
    ]


class Model:
    """A fake endpoint: answers every item (pass/fail by id), optionally leaving some out
    on first attempts; records each call with the calls of its group in flight at start."""

    def __init__(self, *, drop_first=(), delay=0.01):
        self.calls = []
        self.log = []  # ("start"|"end", judge, batch, attempt, in flight)
        self.in_flight = 0
        self.peak = 0
        self.drop_first = set(drop_first)
        self.delay = delay

    def ask_for(self, judge):
        async def ask(call):
            self.calls.append((judge, call))
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            self.log.append(("start", judge, call.batch, call.attempt, self.in_flight))
            await asyncio.sleep(self.delay)
            self.in_flight -= 1
            self.log.append(("end", judge, call.batch, call.attempt, self.in_flight))
            items = read_checklist(call.user)
            verdicts = [
                {
                    "check_id": i.check_id,
                    "result": "pass" if int(i.check_id[1:]) % 3 else "fail",
                    "reasoning": f"{judge} on {i.check_id}",
                    "evidence": 1,
                }
                for i in items
                if not (call.attempt == 1 and i.check_id in self.drop_first)
            ]
            return json.dumps({"verdicts": verdicts})

        return ask


def shared_prefix(user):
    end = user.index(END_TRANSCRIPT) + len(END_TRANSCRIPT)
    return user[:end], user[end:]


async def test_the_first_call_of_a_trial_goes_alone_then_the_batches_fan_out():
    model = Model()
    verdicts = await judge_trial(
        model.ask_for("j"), checks(70), trajectory(), judge_name="j", model="m"
    )
    assert len(verdicts) == 70 and {v.result for v in verdicts} == {"pass", "fail"}
    assert len(model.calls) == 4
    # Batch 0 starts with nothing else in flight and ends before any other call starts.
    assert model.log[:2] == [("start", "j", 0, 1, 1), ("end", "j", 0, 1, 0)]
    assert [entry[0] for entry in model.log[2:5]] == ["start"] * 3
    assert model.peak == 3


async def test_every_call_of_a_trial_shares_the_prefix_up_to_the_end_of_the_transcript():
    model = Model(drop_first={"c001", "c040"})
    judges = [
        PanelJudge("a", "m1", model.ask_for("a"), endpoint="e1"),
        PanelJudge("b", "m2", model.ask_for("b"), endpoint="e1"),
        PanelJudge("c", "m3", model.ask_for("c"), endpoint="e2"),
    ]
    await run_panel(judges, checks(70), trajectory())
    calls = [call for _, call in model.calls]
    assert len(calls) == 3 * 4 + 3 * 2  # 4 batches per judge, 2 batches re-asked each
    assert {call.system for call in calls} == {JUDGE_SYSTEM}
    prefixes = {shared_prefix(call.user)[0] for call in calls}
    assert len(prefixes) == 1
    # What varies (checklist, re-ask note, batch, judge, model, attempt) comes after it.
    (prefix,) = prefixes
    for judge, call in model.calls:
        rest = shared_prefix(call.user)[1]
        assert all(item.check_id in rest for item in read_checklist(call.user))
        assert ("Note on your previous reply" in rest) == (call.attempt > 1)
        assert call.judge == judge and call.model not in prefix
    # Judges on one endpoint send the very same text for the same batch.
    first = {(j, c.batch): c.user for j, c in model.calls if c.attempt == 1}
    assert all(first[("a", b)] == first[("b", b)] == first[("c", b)] for b in range(4))


async def test_the_judges_of_one_endpoint_share_the_first_call_and_others_do_not_wait():
    model = Model()
    judges = [
        PanelJudge("a", "m1", model.ask_for("a"), endpoint="e1"),
        PanelJudge("b", "m2", model.ask_for("b"), endpoint="e1"),
        PanelJudge("c", "m3", model.ask_for("c"), endpoint="e2"),
    ]
    await run_panel(judges, checks(70), trajectory())
    events = [(kind, judge, batch) for kind, judge, batch, _, _ in model.log]
    first_end = events.index(("end", "a", 0))
    # Before a's first call is answered, no other call of e1 starts; c (on e2) does.
    assert [e for e in events[:first_end] if e[0] == "start"] == [
        ("start", "a", 0),
        ("start", "c", 0),
    ]
    # Then a's and b's other seven calls go at once.
    e1_after = [e for e in events[first_end + 1 :] if e[1] in "ab"]
    assert [e[0] for e in e1_after[:7]] == ["start"] * 7
    assert {e[1] for e in e1_after[:7]} == {"a", "b"}


async def test_prefix_concurrency_bounds_the_calls_of_an_endpoint_on_one_trial():
    model = Model()
    judges = [
        PanelJudge("a", "m1", model.ask_for("a"), endpoint="e1", prefix_concurrency=2),
        PanelJudge("b", "m2", model.ask_for("b"), endpoint="e1", prefix_concurrency=1),
    ]
    await run_panel(judges, checks(70), trajectory())
    assert len(model.calls) == 8
    assert model.peak == 1  # the narrower of the two applies to the shared endpoint


async def test_verdicts_and_calls_do_not_depend_on_the_ordering():
    found = {}
    for ordering in ("prefix", "concurrent"):
        model = Model(drop_first={"c005", "c050"})
        judges = [
            PanelJudge("a", "m1", model.ask_for("a"), endpoint="e1"),
            PanelJudge("b", "m2", model.ask_for("b"), endpoint="e1"),
        ]
        result = await run_panel(judges, checks(70), trajectory(), ordering=ordering)
        found[ordering] = (
            {name: [v.model_dump() for v in vs] for name, vs in result.per_judge.items()},
            [v.model_dump() for v in result.majority],
            sorted(call.id for _, call in model.calls),
        )
        if ordering == "concurrent":
            assert model.peak == 8  # every first attempt at once
    assert found["prefix"] == found["concurrent"]


async def test_a_gate_passed_in_is_used_across_trials_and_judges():
    model = Model()
    gate = PrefixGate(width=1)
    await asyncio.gather(
        judge_trial(
            model.ask_for("a"), checks(70), trajectory(), judge_name="a", model="m", gate=gate
        ),
        judge_trial(
            model.ask_for("b"), checks(70), trajectory(), judge_name="b", model="m", gate=gate
        ),
    )
    assert len(model.calls) == 8 and model.peak == 1


def test_panel_judges_name_their_endpoint_and_its_prefix_concurrency():
    spec = JudgePanelSpec.model_validate(
        {
            "judges": [
                {
                    "name": "a",
                    "endpoint": {
                        "baseUrl": "http://h:1/v1/",
                        "model": "m",
                        "limits": {"prefixConcurrency": 1},
                    },
                },
                {"name": "b", "endpoint": {"baseUrl": "http://h:1/v1", "model": "m"}},
                {
                    "name": "c",
                    "endpoint": {"api": "anthropic", "baseUrl": "http://h:1", "model": "m"},
                },
            ]
        }
    )
    judges = panel_judges(spec, lambda judge: model_ask)
    assert [j.endpoint for j in judges] == [
        "openai http://h:1/v1 m",
        "openai http://h:1/v1 m",
        "anthropic http://h:1 m",
    ]
    assert [j.prefix_concurrency for j in judges] == [1, None, None]
    assert judges[0].endpoint == endpoint_key(spec.judges[1].endpoint)
    assert PanelJudge("x", "m9", model_ask).prefix_group == "model m9"


async def model_ask(call):  # pragma: no cover - never called
    raise AssertionError
