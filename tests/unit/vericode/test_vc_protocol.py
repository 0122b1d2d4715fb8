"""protocol: paper against the adhere default at suite level, prompt templates, environments."""

import pytest

from adhere.core import ChatMessage, Evidence, Trajectory
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.vericode import Chosen, Selection, builtin_tasks, selection_instances
from adhere.suites.vericode._templates import ADHERE_PROMPTS, PAPER_PROMPTS

TASK = next(t for t in builtin_tasks() if t.id == "chunk")
CHOSEN = [Chosen(id="style_5", params={}), Chosen(id="doc_4", params={})]


def _single(rules, k=2, **extra):
    selection = Selection(task=TASK, instructions=CHOSEN)
    found = selection_instances(selection, ["single"], [k], rules=rules, **extra)
    return found[0]


def _trajectory(instance, reply):
    return Trajectory(
        messages=[
            ChatMessage(role="user", content=instance.turns[0]),
            ChatMessage(role="assistant", content=reply),
        ]
    )


def test_paper_protocol_lints_and_tests_empty_code_where_adhere_fails_it():
    suite = get_suite("vericode")
    reply = "```python\n```"
    adhere_instance, paper_instance = _single("adhere"), _single("paper")
    assert suite.evidence(adhere_instance, _trajectory(adhere_instance, reply)) == []
    requests = suite.evidence(paper_instance, _trajectory(paper_instance, reply))
    assert [(r.id, r.code) for r in requests] == [("tests@0", ""), ("ruff:style_5@0", "")]
    evidence = {
        "tests@0": Evidence(id="tests@0", status="fail", detail="NameError"),
        "ruff:style_5@0": Evidence(id="ruff:style_5@0", status="pass"),
    }
    paper = {v.check_id: v.result for v in suite.score(paper_instance,
             _trajectory(paper_instance, reply), evidence)}  # fmt: skip
    assert paper == {"tests": "fail", "style_5": "pass", "doc_4": "fail"}
    ours = {v.check_id: v.result for v in suite.score(adhere_instance,
            _trajectory(adhere_instance, reply), {})}  # fmt: skip
    assert ours == {"tests": "fail", "style_5": "fail", "doc_4": "fail"}


def test_paper_protocol_reads_code_and_doc_4_by_the_paper():
    suite = get_suite("vericode")
    reply = '```python title="x.py"\nx = 1\n```'
    paper_instance = _single("paper")
    [tests, *_] = suite.evidence(paper_instance, _trajectory(paper_instance, reply))
    assert tests.code == 'python title="x.py"\nx = 1\n'  # the tag line stays in the code
    adhere_instance = _single("adhere")
    [tests, *_] = suite.evidence(adhere_instance, _trajectory(adhere_instance, reply))
    assert tests.code == "x = 1\n"


def test_prompts_by_protocol():
    ours, paper = _single("adhere"), _single("paper")
    assert ours.system_prompt == ADHERE_PROMPTS.system
    assert paper.system_prompt == PAPER_PROMPTS.system
    assert "Follow these instructions:\n1. " in ours.turns[0]
    assert (
        "Additionally, ensure your code meets the following requirements:\n1. " in (paper.turns[0])
    )
    one = _single("paper", k=1)
    assert "the following requirement: Write every" in one.turns[0] and "\n1. " not in one.turns[0]
    assert _single("paper", k=0).turns[0] == TASK.prompt.strip()
    assert paper.metadata["vericode"]["rules"] == "paper"


def _load(tmp_path, options, prompts=None):
    if prompts is not None:
        (tmp_path / "prompts.yaml").write_text(prompts)
    spec = BenchmarkSpec.model_validate(
        {
            "suite": "vericode",
            "source": {"generate": {"tasks": "builtin", "limit": 1}},
            "options": options,
        }  # fmt: skip
    )
    return get_suite("vericode", **options).load(spec, base_dir=tmp_path)


def test_a_prompts_file_replaces_templates(tmp_path):
    prompts = (
        "system: Be terse.\n"
        "single: |-\n  TASK: $task\n\n  RULES ($k):\n  $instructions\n"
        "edit: 'Turn $turn: $instruction'\n"
    )
    found = _load(tmp_path, {"prompts": "prompts.yaml", "ks": [2]}, prompts)
    single = next(i for i in found if i.metadata["protocol"] == "single")
    multi = next(i for i in found if i.metadata["protocol"] == "multi")
    assert single.system_prompt == "Be terse."
    assert single.turns[0].startswith("TASK: ") and "\n\nRULES (2):\n1. " in single.turns[0]
    assert multi.turns[1].startswith("Turn 1: ") and multi.turns[2].startswith("Turn 2: ")


@pytest.mark.parametrize(
    ("prompts", "message"),
    [
        ("edit: '$task'\n", r"unknown variables \$task; this template gets \$instruction"),
        ("colour: x\n", "unknown template 'colour'"),
        ("bare: 3\n", "expected the template's text"),
        ("bare: 'costs $5'\n", "write \\$\\$ for a dollar"),
        ("- a\n", "expected a mapping"),
    ],
)
def test_bad_prompts_files_are_named(tmp_path, prompts, message):
    with pytest.raises(SpecError, match=message) as caught:
        _load(tmp_path, {"prompts": "prompts.yaml"}, prompts)
    assert "prompts.yaml" in str(caught.value)


def test_protocol_and_environment_options_are_checked():
    with pytest.raises(SpecError, match="adhere, paper"):
        get_suite("vericode", protocol="both")
    with pytest.raises(SpecError, match="auto, none"):
        get_suite("vericode", environment="conda")


def test_tasks_with_third_party_libraries_ask_for_the_suite_environment():
    suite = get_suite("vericode")
    pandas_task = TASK.model_copy(update={"libs": ["pandas", "os"]})
    for environment, wanted in (("auto", "vericode"), ("none", "")):
        selection = Selection(task=pandas_task, instructions=[])
        [instance] = selection_instances(selection, ["single"], [0], environment=environment)
        [request] = suite.evidence(instance, _trajectory(instance, "x = 1\n"))
        assert request.environment == wanted
    stdlib_only = TASK.model_copy(update={"libs": ["os", "collections.abc"]})
    [instance] = selection_instances(Selection(task=stdlib_only, instructions=[]), ["single"], [0])
    [request] = suite.evidence(instance, _trajectory(instance, "x = 1\n"))
    assert request.environment == ""


def test_generate_keys_do_not_reset_the_benchmark_options(tmp_path):
    # spec.options says single-turn, paper; spec.source.generate only limits the tasks
    found = _load(tmp_path, {"protocols": ["single"], "protocol": "paper", "ks": [1]})
    assert [i.metadata["protocol"] for i in found] == ["single"]
    assert found[0].metadata["vericode"]["rules"] == "paper"
    assert found[0].system_prompt == PAPER_PROMPTS.system
