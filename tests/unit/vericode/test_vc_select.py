"""Parameter rules, the deterministic selector, the LLM selector's parser and its test double."""

import json

from adhere.core import ChatMessage
from adhere.suites.vericode import (
    CONFLICTS,
    INSTRUCTIONS,
    builtin_tasks,
    by_id,
    conflicts,
    parse_selector_reply,
    permutation,
    relevant,
    select_deterministic,
    selector_prompt,
    validate_params,
)
from adhere.testing._vericode_selector import VeriCodeSelectorPolicy
from adhere.wire import Conversation

TASKS = {t.id: t for t in builtin_tasks()}


def test_catalogue_shape():
    assert len(INSTRUCTIONS) == 30
    counts = {}
    for instruction in INSTRUCTIONS:
        counts[instruction.category] = counts.get(instruction.category, 0) + 1
        assert instruction.render_generation() and instruction.render_edit()
    assert counts == {"style": 9, "logic": 9, "doc": 6, "error": 4, "library": 2}
    assert {i.id for i in INSTRUCTIONS if i.preview} == {"style_9", "logic_2", "logic_5", "logic_9"}
    assert by_id("logic_6").select == ("RET504", "RET505", "RET506", "RET507", "RET508")
    assert by_id("doc_1").select[:3] == ("ANN001", "ANN002", "ANN003")
    assert by_id("style_3").ruff_config({"line_length": 100}) == {"line-length": 100}
    assert by_id("logic_3").ruff_config() == {"lint": {"pylint": {"max-branches": 2}}}
    assert by_id("doc_3").render_generation({"convention": "numpy"}).count("numpy") == 1
    assert all(
        conflicts(*sorted(pair)) and conflicts(*sorted(pair, reverse=True)) for pair in CONFLICTS
    )
    assert not conflicts("style_1", "style_1")


def test_parameter_rules():
    style_3 = by_id("style_3")
    assert validate_params(style_3, None).values == {"line_length": 79}
    kept = validate_params(style_3, {"line_length": "100"})
    assert kept.values == {"line_length": 100} and not kept.notes
    for bad in (39, 201, "long", True, None, 80.5):
        result = validate_params(style_3, {"line_length": bad})
        assert result.values == {"line_length": 79} and "reset to 79" in result.notes[0]
    dropped = validate_params(style_3, {"width": 3, "line_length": 88})
    assert dropped.values == {"line_length": 88} and "unknown parameter 'width'" in dropped.notes[0]
    doc_3 = by_id("doc_3")
    assert validate_params(doc_3, {"convention": "Google"}).values == {"convention": "google"}
    assert validate_params(doc_3, {"convention": "sphinx"}).values == {"convention": "pep257"}
    assert validate_params(by_id("style_1"), {"x": 1}).values == {}


def test_deterministic_selector_is_seed_stable_and_avoids_conflicts():
    task = TASKS["read_config"]
    first = select_deterministic(task, 5, seed=7)
    again = select_deterministic(task, 5, seed=7)
    assert first == again and len(first.instructions) == 5
    assert permutation(task.id, 7) == permutation(task.id, 7)
    assert sorted(permutation(task.id, 7)) == sorted(i.id for i in INSTRUCTIONS)
    others = {
        tuple(c.id for c in select_deterministic(task, 5, seed=s).instructions) for s in range(8)
    }
    assert len(others) > 1  # the seed matters
    for seed in range(40):
        for t in TASKS.values():
            chosen = [c.id for c in select_deterministic(t, 5, seed).instructions]
            assert len(set(chosen)) == len(chosen) == 5
            assert not any(conflicts(a, b) for a in chosen for b in chosen if a != b)
            assert all(relevant(c, t) for c in chosen)
    # pinned: the example's selection does not drift silently
    pinned = select_deterministic(TASKS["running_max"], 5, 0).instructions
    assert [c.id for c in pinned] == ["logic_5", "logic_9", "logic_6", "style_2", "style_5"]


def test_relevance_rules():
    plain, files = TASKS["running_max"], TASKS["count_lines"]
    assert not relevant("library_1", plain) and relevant("library_1", files)
    assert not relevant("library_2", files)  # pandas only
    assert relevant("error_1", TASKS["safe_divide"]) and not relevant("error_1", plain)
    assert relevant("style_1", plain)


def test_llm_reply_parsing():
    task = TASKS["read_config"]
    reply = "Sure.\n" + json.dumps(
        {
            "selected": [
                {"id": "doc_3", "params": {"convention": "numpy"}},
                {"id": "doc_5"},  # conflicts with doc_3: dropped
                {"id": "nope_1"},
                {"id": "style_3", "params": {"line_length": 5, "extra": 1}},
                {"id": "doc_3"},
            ]
        }
    )
    selection = parse_selector_reply(reply, task, 4, seed=1)
    ids = [c.id for c in selection.instructions]
    assert ids[:2] == ["doc_3", "style_3"] and len(ids) == 4
    assert selection.instructions[0].params == {"convention": "numpy"}
    assert selection.instructions[1].params == {"line_length": 79}
    notes = " | ".join(selection.notes)
    for fragment in (
        "conflicts with doc_3",
        "unknown instruction 'nope_1'",
        "reset to 79",
        "unknown parameter 'extra'",
        "repeated",
        "filled by the deterministic walk",
    ):
        assert fragment in notes  # fmt: skip
    garbage = parse_selector_reply("no idea", task, 5, seed=1)
    assert len(garbage.instructions) == 5 and "no JSON object" in garbage.notes[0]
    assert [c.id for c in garbage.instructions] == [
        c.id for c in select_deterministic(task, 5, 1).instructions
    ]


def _ask(policy, text):
    conversation = Conversation(
        model="vericode-selector", policy="vericode-selector", options={}, system="",
        messages=(ChatMessage(role="user", content=text),),
    )  # fmt: skip
    return policy.respond(conversation).text


def test_selector_policy_answers_the_prompt():
    task = TASKS["read_config"]
    prompt = selector_prompt(task, permutation(task.id, 3), 5)
    policy = VeriCodeSelectorPolicy(seed=1, params=1.0)
    reply = _ask(policy, prompt)
    assert reply == _ask(policy, prompt)  # deterministic
    selection = parse_selector_reply(reply, task, 5, seed=3)
    ids = [c.id for c in selection.instructions]
    assert len(ids) == 5 and not any("filled" in n for n in selection.notes)
    assert not any(conflicts(a, b) for a in ids for b in ids if a != b)
    plain = TASKS["running_max"]
    plain_reply = json.loads(_ask(policy, selector_prompt(plain, permutation(plain.id, 3), 5)))
    assert not {c["id"] for c in plain_reply["selected"]} & {"library_1", "library_2", "error_1"}
    garbled = _ask(VeriCodeSelectorPolicy(garble=1.0), prompt)
    assert "{" not in garbled
