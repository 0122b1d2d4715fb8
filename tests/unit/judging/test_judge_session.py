import json
from collections import Counter

import pytest

from adhere.core._chat import ChatMessage, ToolCall
from adhere.core._types import Check, Source, Trajectory, VerifierRef
from adhere.judging._cache import MemoryVerdictCache
from adhere.judging._judge import judge_trial
from adhere.judging._judge_batches import items_per_call, plan_batches, prompt_tokens
from adhere.judging._prompt import JUDGE_SYSTEM, PromptItem, read_checklist

SOURCES = [Source.SYSTEM_PROMPT, Source.AGENTS_MD, Source.USER_QUERY, Source.TOOL_SCHEMA]


def trajectory():
    return Trajectory(
        system="Be brief.",
        messages=[
            ChatMessage(role="user", content="Fix the bug."),
            ChatMessage(
                role="assistant",
                content="Reading.",
                tool_calls=(ToolCall(id="t1", name="read", arguments={"path": "a.py"}),),
            ),
            ChatMessage(role="tool", content="x = 1", tool_call_id="t1", name="read"),
            ChatMessage(role="assistant", content="Fixed."),
        ],
    )


def checks(n, conditional_every=0):
    out = []
    for i in range(n):
        conditional = conditional_every and i % conditional_every == 0
        description = f"If the agent edits file {i}, it says so." if conditional else f"Rule {i}."
        out.append(Check(id=f"c{i:03d}", source=SOURCES[i % 4], description=description))
    return out


def answer(items, result="pass", evidence=1, skip=()):
    return json.dumps(
        {
            "verdicts": [
                {"check_id": i.check_id, "result": result, "reasoning": "r", "evidence": evidence}
                for i in items
                if i.check_id not in skip
            ]
        }
    )


class Judge:
    """A fake judge model: answers from a function of (call number, items, call)."""

    def __init__(self, respond=None):
        self.calls = []
        self.respond = respond or (lambda n, items, call: answer(items))

    async def __call__(self, call):
        self.calls.append(call)
        return self.respond(len(self.calls), read_checklist(call.user), call)

    def asked(self):
        return Counter(i.check_id for c in self.calls for i in read_checklist(c.user))


async def judge(ask, checklist, **options):
    options.setdefault("judge_name", "j1")
    options.setdefault("model", "m1")
    return await judge_trial(ask, checklist, trajectory(), **options)


async def test_long_checklist_is_batched_and_every_id_comes_back_once():
    ask = Judge()
    checklist = checks(70)
    verdicts = await judge(ask, checklist)
    assert [v.check_id for v in verdicts] == [c.id for c in checklist]
    assert len(ask.calls) == 4
    sizes = [len(read_checklist(c.user)) for c in ask.calls]
    assert sorted(sizes) == [17, 17, 18, 18]
    assert ask.asked() == Counter({c.id: 1 for c in checklist})
    assert {c.batch for c in ask.calls} == {0, 1, 2, 3}
    assert all(c.max_tokens == 4096 and c.system == JUDGE_SYSTEM for c in ask.calls)
    first = verdicts[0]
    assert first.result == "pass" and first.decided_by == "judge:j1"
    assert first.evidence == 3
    assert first.details == {
        "judge": "j1",
        "model": "m1",
        "prompt_version": "v1",
        "attempts": 1,
        "batch": 0,
        "evidence_turn": 1,
    }


async def test_only_missing_and_invalid_ids_are_reasked_with_a_note():
    def respond(n, items, call):
        if n == 1:
            entries = json.loads(answer(items, skip={"c001"}))["verdicts"]
            entries[0]["result"] = "n/a"  # c000 is conditional: fine
            entries[1]["result"] = "n/a"  # c002 is not conditional: invalid
            entries[2]["result"] = "unsure"  # c003: invalid
            entries.append(dict(entries[3], result="fail"))  # c004 twice: conflict
            entries.append({"check_id": "ghost", "result": "pass"})
            return json.dumps({"verdicts": entries})
        return answer(items, result="fail")

    ask = Judge(respond)
    checklist = checks(6, conditional_every=5)
    verdicts = {v.check_id: v for v in await judge(ask, checklist)}
    assert len(ask.calls) == 2
    reasked = [i.check_id for i in read_checklist(ask.calls[1].user)]
    assert reasked == ["c001", "c002", "c003", "c004"]
    note = ask.calls[1].user.split("Note on your previous reply:\n")[1]
    assert '"c001": not answered' in note
    assert '"c002": n/a is only allowed for items with a condition' in note
    assert "\"c003\": result 'unsure' is not one of pass, fail, n/a" in note
    assert '"c004": answered 2 times' in note
    assert '"ghost"' in note
    assert ask.calls[1].attempt == 2 and ask.calls[1].id != ask.calls[0].id
    assert verdicts["c000"].result == "n/a" and verdicts["c000"].details["attempts"] == 1
    assert verdicts["c005"].result == "pass" and verdicts["c005"].details["attempts"] == 1
    for check_id in reasked:
        assert verdicts[check_id].result == "fail"
        assert verdicts[check_id].details["attempts"] == 2


async def test_unusable_replies_become_errors_after_max_attempts():
    ask = Judge(lambda n, items, call: "I think it all looks fine.")
    checklist = checks(30)
    verdicts = await judge(ask, checklist, max_attempts=3, batch_size=15)
    assert len(ask.calls) == 6
    assert [v.check_id for v in verdicts] == [c.id for c in checklist]
    assert {v.result for v in verdicts} == {"error"}
    error = verdicts[0]
    assert error.reasoning.startswith("no usable judge answer after 3 attempts")
    assert "prose, not a JSON object" in error.reasoning
    assert error.details["problems"] == [
        f"attempt {n}: the reply is prose, not a JSON object" for n in (1, 2, 3)
    ]
    assert "Note on your previous reply:\n" in ask.calls[-1].user
    assert "- the whole reply: the reply is prose" in ask.calls[-1].user


async def test_a_call_that_raises_counts_as_an_attempt_for_its_batch():
    def respond(n, items, call):
        if n == 1:
            raise TimeoutError("judge took too long")
        return answer(items)

    ask = Judge(respond)
    verdicts = await judge(ask, checks(5))
    assert [v.result for v in verdicts] == ["pass"] * 5
    assert {v.details["attempts"] for v in verdicts} == {2}
    assert ask.calls[0].user == ask.calls[1].user

    def always(n, items, call):
        raise ConnectionError("refused")

    failing = Judge(always)
    errors = await judge(failing, checks(5), max_attempts=2)
    assert len(failing.calls) == 2
    assert {v.result for v in errors} == {"error"}
    assert "the call failed: ConnectionError: refused" in errors[0].reasoning


async def test_a_truncated_reply_is_reasked_in_two_halves():
    def respond(n, items, call):
        text = answer(items)
        return text[: len(text) // 2] if n == 1 else text

    ask = Judge(respond)
    verdicts = await judge(ask, checks(10))
    assert [len(read_checklist(c.user)) for c in ask.calls] == [10, 5, 5]
    assert all(v.result == "pass" for v in verdicts)
    assert "cut off" in ask.calls[1].user


async def test_max_output_tokens_bounds_the_batch_size():
    ask = Judge()
    await judge(ask, checks(20), max_output_tokens=1000)
    capacity = items_per_call(
        [PromptItem.from_check(c) for c in checks(20)], max_output_tokens=1000, batch_size=40
    )
    assert capacity == 5
    assert [len(read_checklist(c.user)) for c in ask.calls] == [5, 5, 5, 5]


@pytest.mark.parametrize(("grouping", "calls"), [("item", 12), ("category", 4), ("checklist", 1)])
async def test_grouping(grouping, calls):
    ask = Judge()
    verdicts = await judge(ask, checks(12), grouping=grouping)
    assert len(ask.calls) == calls and len(verdicts) == 12
    if grouping == "category":
        for call in ask.calls:
            assert len({i.source for i in read_checklist(call.user)}) == 1


def test_plan_batches_never_loses_items():
    items = [PromptItem.from_check(c) for c in checks(97)]
    for grouping in ("item", "category", "checklist"):
        batches = plan_batches(items, grouping=grouping, batch_size=10)
        assert sorted(i.check_id for b in batches for i in b) == sorted(i.check_id for i in items)
        assert max(len(b) for b in batches) <= 10
    assert plan_batches([], grouping="checklist") == []
    with pytest.raises(ValueError, match="grouping"):
        plan_batches(items, grouping="bogus")
    with pytest.raises(ValueError, match="batch_size"):
        plan_batches(items, batch_size=0)


def test_prompt_tokens_compare_groupings():
    estimates = {
        g: prompt_tokens(checks(24), trajectory(), grouping=g)
        for g in ("item", "category", "checklist")
    }
    assert [estimates[g].calls for g in ("item", "category", "checklist")] == [24, 4, 2]
    per_item = [estimates[g].prompt_tokens_per_item for g in ("item", "category", "checklist")]
    assert per_item[0] > per_item[1] > per_item[2] > 0
    assert estimates["item"].output_tokens > estimates["checklist"].output_tokens


async def test_cache_hits_make_no_calls_and_changes_reask_only_what_changed():
    cache = MemoryVerdictCache()
    checklist = checks(8)
    first_ask = Judge()
    first = await judge(first_ask, checklist, cache=cache)
    assert len(cache) == 8 and len(first_ask.calls) == 1
    again = Judge()
    second = await judge(again, checklist, cache=cache, judge_name="other")
    assert again.calls == []
    assert [v.result for v in second] == [v.result for v in first]
    assert all(v.details["cached"] and v.decided_by == "judge:other" for v in second)
    changed = [*checklist[:-1], checklist[-1].model_copy(update={"description": "New rule."})]
    third = Judge()
    await judge(third, changed, cache=cache)
    assert list(third.asked()) == ["c007"]
    other_model = Judge()
    await judge(other_model, checklist, cache=cache, model="m2")
    assert len(other_model.calls) == 1


async def test_errors_are_not_cached():
    cache = MemoryVerdictCache()
    await judge(Judge(lambda n, items, call: "nope"), checks(3), cache=cache, max_attempts=1)
    assert len(cache) == 0
    ask = Judge()
    await judge(ask, checks(3), cache=cache)
    assert len(ask.calls) == 1


async def test_call_ids_are_stable_and_inputs_are_checked():
    one, two = Judge(), Judge()
    await judge(one, checks(3))
    await judge(two, checks(3))
    assert [c.id for c in one.calls] == [c.id for c in two.calls]
    assert one.calls[0].id.startswith("judge-") and one.calls[0].judge == "j1"
    assert await judge(Judge(), []) == []
    with pytest.raises(ValueError, match="duplicate check ids: c000"):
        await judge(Judge(), checks(2) + checks(1))
    with pytest.raises(ValueError, match="unknown judge prompt version 'v9'"):
        await judge(Judge(), checks(1), prompt_version="v9")
    with pytest.raises(ValueError, match="max_attempts"):
        await judge(Judge(), checks(1), max_attempts=0)


async def test_checks_with_a_verifier_are_still_judged_when_passed_directly():
    check = Check(id="v", source=Source.STYLE, description="d", verifier=VerifierRef(name="x"))
    assert [v.check_id for v in await judge(Judge(), [check])] == ["v"]
