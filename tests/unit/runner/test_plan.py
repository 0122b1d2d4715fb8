"""plan_trials: which instance runs under which scaffold, at which version, and what is skipped."""

import pytest

from adhere.core import Check, Instance, ScaffoldRef, Source, Trial, Workspace
from adhere.errors import SpecError
from adhere.runner import describe_plan, image_only_problem, plan_summary, plan_trials
from adhere.scaffolds import BUILTIN, VersionSupport, version_support
from adhere.spec import Rollout
from adhere.suites.octobench import load_octobench
from tests.helpers import shared_data

CLAUDE = VersionSupport(
    pinned="2.1.197", tested=("2.1.197", "2.0.69"), package="npm @anthropic-ai/claude-code"
)
KILO = VersionSupport(pinned="7.7.7", tested=("7.7.7",), unavailable={"0.10.2": "not on npm"})
DROID = VersionSupport(pinned="0.225.2", tested=("0.225.2",))
VERSIONS = {
    "claude-code": CLAUDE,
    "kilo": KILO,
    "droid": DROID,
    "chat": VersionSupport(pinned=BUILTIN),
}


def instance(id_, scaffold=None, version=None, note="", **workspace):
    ref = (
        None if scaffold is None else ScaffoldRef(name=scaffold, version=version, version_note=note)
    )
    return Instance(
        id=id_,
        suite="octobench",
        turns=["do it"],
        checks=[Check(id="c", source=Source.USER_QUERY, description="did it")],
        scaffold=ref,
        workspace=Workspace(**workspace),
    )


def rollout(scaffolds, *, models=("a",), repeats=1):
    return Rollout.model_validate(
        {
            "metadata": {"name": "r"},
            "spec": {
                "benchmark": "b",
                "models": [
                    {"name": m, "endpoint": {"baseUrl": "http://127.0.0.1:9/v1", "model": "x"}}
                    for m in models
                ],
                "scaffolds": scaffolds,
                "repeats": repeats,
            },
        }
    )


MIXED = [
    instance("cc-1", "claude-code", "2.0.69"),
    instance("cc-2", "claude-code", "2.0.69"),
    instance("kilo-1", "kilo", "0.10.2", note="the paper's"),
    instance("kilo-2", "kilo", "0.10.2"),
    instance("droid-1", "droid"),
    instance("plain"),
    instance("odd", "windsurf", "1.0"),
]


def test_a_list_crosses_every_instance_with_every_scaffold_as_before():
    r = rollout(["chat", "kilo"], models=("a", "b"), repeats=2)
    plan = plan_trials(r, MIXED, VERSIONS)
    assert plan.trials == [
        Trial(rollout="r", model=m, scaffold=s, instance=i.id, repeat=k)
        for m in ("a", "b")
        for s in ("chat", "kilo")
        for i in MIXED
        for k in range(2)
    ]
    assert plan.skipped == []
    assert {n: p.version for n, p in plan.scaffolds.items()} == {"chat": BUILTIN, "kilo": "7.7.7"}
    assert all(not p.notes for p in plan.scaffolds.values())


def test_from_instance_runs_each_instance_only_under_its_own_scaffold():
    plan = plan_trials(rollout("fromInstance", models=("a", "b")), MIXED, VERSIONS)
    assert plan.counts() == {
        ("a", "claude-code", "2.0.69"): 2,
        ("a", "kilo", "7.7.7"): 2,
        ("a", "droid", "0.225.2"): 1,
        ("b", "claude-code", "2.0.69"): 2,
        ("b", "kilo", "7.7.7"): 2,
        ("b", "droid", "0.225.2"): 1,
    }
    by_instance = {(t.model, t.instance): t.scaffold for t in plan.trials}
    assert by_instance[("a", "cc-1")] == "claude-code"
    assert by_instance[("b", "kilo-2")] == "kilo"
    assert len(plan.trials) == 10  # no instance counted twice
    skipped = {s.instance: s.reason for s in plan.skipped}
    assert set(skipped) == {"plain", "odd"}
    assert "names no scaffold" in skipped["plain"]
    assert "'windsurf'" in skipped["odd"] and "does not have" in skipped["odd"]


def test_from_instance_versions_say_what_runs_instead_and_why():
    plan = plan_trials(rollout("fromInstance"), MIXED, VERSIONS)
    assert plan.scaffolds["claude-code"].notes == ()  # 2.0.69 is a tested version: it runs
    (kilo,) = plan.scaffolds["kilo"].notes
    assert "2 instances name kilo 0.10.2" in kilo
    assert "1 of them: the paper's" in kilo
    assert "not on npm" in kilo and "7.7.7 (the pin) runs instead" in kilo
    (droid,) = plan.scaffolds["droid"].notes
    assert "1 instance name no droid version" in droid and "0.225.2" in droid


def test_an_untested_instance_version_runs_the_pin_and_says_how_to_force_it():
    plan = plan_trials(rollout("fromInstance"), [instance("x", "claude-code", "2.0.50")], VERSIONS)
    planned = plan.scaffolds["claude-code"]
    assert planned.version == "2.1.197"
    (note,) = planned.notes
    assert "not a version adhere is tested with (2.1.197, 2.0.69)" in note
    assert "'version: 2.0.50'" in note


def test_an_exact_version_runs_as_asked():
    entry = {"name": "claude-code", "version": "2.0.69"}
    plan = plan_trials(rollout([entry]), MIXED, VERSIONS)
    assert {p.version for p in plan.scaffolds.values()} == {"2.0.69"}
    assert len(plan.trials) == len(MIXED)  # a listed scaffold crosses every instance
    untested = plan_trials(rollout([{"name": "claude-code", "version": "2.0.1"}]), MIXED, VERSIONS)
    (note,) = untested.scaffolds["claude-code"].notes
    assert untested.scaffolds["claude-code"].version == "2.0.1"
    assert "installed from npm @anthropic-ai/claude-code as asked" in note


@pytest.mark.parametrize(
    ("entries", "field", "message"),
    [
        ([{"name": "kilo", "version": "0.10.2"}], "spec.scaffolds[0].version", "not on npm"),
        (["kilo", {"name": "chat", "version": "1.0"}], "spec.scaffolds[1].version", "in-process"),
        (["chat", "nonesuch"], "spec.scaffolds[1].name", "unknown scaffold"),
    ],
)
def test_versions_and_names_that_cannot_run_are_errors_naming_the_field(entries, field, message):
    with pytest.raises(SpecError) as caught:
        plan_trials(rollout(entries), MIXED, VERSIONS, file="rollout.yaml")
    assert caught.value.file == "rollout.yaml"
    assert caught.value.field == field
    assert message in caught.value.message


def test_a_scaffold_runs_one_version_per_rollout():
    two = [instance("new", "claude-code", "2.1.197"), instance("old", "claude-code", "2.0.69")]
    with pytest.raises(SpecError) as caught:
        plan_trials(rollout("fromInstance"), two, VERSIONS, file="r.yaml")
    assert caught.value.field == "spec.scaffolds[0].version"
    assert "2.0.69, 2.1.197" in caught.value.message
    # crossing: instances that do not name claude-code run the pin, those naming it 2.0.69
    entry = {"name": "claude-code", "version": "fromInstance"}
    with pytest.raises(SpecError, match="one version of a scaffold"):
        plan_trials(rollout([entry]), MIXED, VERSIONS)
    narrowed = [i for i in MIXED if i.id.startswith("cc-")]
    assert plan_trials(rollout([entry]), narrowed, VERSIONS).scaffolds["claude-code"].version == (
        "2.0.69"
    )


def test_own_entries_give_settings_and_the_wildcard_covers_the_rest():
    entries = [
        "fromInstance",
        {
            "name": "droid",
            "instances": "own",
            "options": {"provider": "anthropic"},
            "timeoutSeconds": 99,
        },
        {"name": "kilo", "instances": "own", "version": "7.7.7"},
    ]
    plan = plan_trials(rollout(entries), MIXED, VERSIONS)
    assert plan.scaffolds["droid"].spec.options == {"provider": "anthropic"}
    assert plan.timeouts() == {"claude-code": 1800, "droid": 99, "kilo": 1800}
    assert plan.scaffolds["kilo"].version == "7.7.7" and plan.scaffolds["kilo"].notes == ()
    assert {t.instance for t in plan.trials if t.scaffold == "droid"} == {"droid-1"}
    assert len(plan.trials) == 5


def test_own_entries_alone_skip_what_they_do_not_name_and_report_idle_ones():
    entries = [{"name": "kilo", "instances": "own"}, {"name": "claude-code", "instances": "own"}]
    plan = plan_trials(rollout(entries), [instance("k", "kilo"), instance("d", "droid")], VERSIONS)
    assert [t.instance for t in plan.trials] == ["k"]
    assert plan.idle == ["claude-code"]
    ((skipped, reason),) = [(s.instance, s.reason) for s in plan.skipped]
    assert skipped == "d" and "'droid', which the rollout does not list" in reason


def test_a_listed_scaffold_also_runs_the_instances_bound_to_it_once():
    plan = plan_trials(rollout(["fromInstance", "claude-code"]), MIXED[:2], VERSIONS)
    assert [(t.scaffold, t.instance) for t in plan.trials] == [
        ("claude-code", "cc-1"),
        ("claude-code", "cc-2"),
    ]
    assert plan.scaffolds["claude-code"].version == "2.1.197"  # the listed entry's: the pin


def test_a_plan_without_trials_is_an_error_saying_why():
    with pytest.raises(SpecError) as caught:
        plan_trials(rollout("fromInstance"), [instance("p"), instance("q")], VERSIONS, file="r")
    assert caught.value.field == "spec.scaffolds"
    assert "every instance is skipped (2 instances: names no scaffold" in caught.value.message


def test_image_only_instances_are_counted_among_the_planned_ones():
    instances = [
        instance("img-1", "claude-code", image="registry/x:1"),
        instance("img-2", "claude-code", image="registry/x:2"),
        instance("files", "claude-code", image="registry/x:3", files={"a.py": "x = 1\n"}),
        instance("skipped", "windsurf", image="registry/x:4"),
    ]
    plan = plan_trials(rollout("fromInstance"), instances, VERSIONS)
    problem = image_only_problem(instances, plan)
    assert problem is not None
    assert problem.startswith("2 of the 3 planned instances give their workspace only as a")
    assert "img-1, img-2" in problem and "skipped" not in problem
    assert "supply the workspaces as files" in problem and "on a cluster" in problem
    with_files = [i for i in instances if i.id == "files"]
    assert (
        image_only_problem(with_files, plan_trials(rollout("fromInstance"), with_files, VERSIONS))
        is None
    )


def test_the_plan_in_words():
    plan = plan_trials(rollout("fromInstance", models=("a",)), MIXED, VERSIONS)
    assert plan_summary(rollout("fromInstance"), plan) == (
        "5 instances (2 skipped) × 1 model × 1 repeat under claude-code 2.0.69, kilo 7.7.7, "
        "droid 0.225.2 = 5 trials"
    )
    lines = describe_plan(rollout("fromInstance"), plan)
    table = lines[lines.index("Trials per model × scaffold × version:") + 1 :][:4]
    assert [line.split() for line in table] == [
        ["model", "scaffold", "version", "trials"],
        ["a", "claude-code", "2.0.69", "2"],
        ["a", "kilo", "7.7.7", "2"],
        ["a", "droid", "0.225.2", "1"],
    ]
    assert any(line.startswith("  1 instance: names no scaffold") for line in lines)


PUBLISHED = shared_data("octocodingbench", "octocodingbench.jsonl")


def test_the_published_seed_instances_under_their_own_scaffolds():
    instances = load_octobench(PUBLISHED)
    versions = {n: version_support(n) for n in ("claude-code", "kilo", "droid")}
    plan = plan_trials(rollout("fromInstance", models=("a", "b")), instances, versions)
    assert plan.counts() == {
        (m, s, v): n
        for m in ("a", "b")
        for s, v, n in (
            ("claude-code", "2.0.69", 54),
            ("droid", versions["droid"].pinned, 7),
            ("kilo", versions["kilo"].pinned, 11),
        )
    }
    assert plan.skipped == []
    notes = " ".join(n for p in plan.scaffolds.values() for n in p.notes)
    assert "11 instances name kilo 0.10.2 (6 of them" in notes
    assert "7 instances name droid 0.42.2 (7 of them" in notes
    assert image_only_problem(instances, plan).startswith("72 of the 72 planned instances")
