"""Trial fingerprints: each part moves with what it covers, and only with that."""

from types import SimpleNamespace

from adhere.core import Check, Instance, Source, Workspace
from adhere.runner._fingerprint import (
    FINGERPRINT_PARTS,
    changed_parts,
    scaffold_version,
    trial_fingerprint,
)
from adhere.spec import BenchmarkSpec, Endpoint, ScaffoldSpec

ENDPOINT = Endpoint(api="openai", base_url="scripted", model="noisy:rate=0.15")
SCAFFOLD = ScaffoldSpec(name="chat")
INSTANCE = Instance(
    id="i",
    suite="pacific",
    system_prompt="Be brief.",
    turns=["Hi"],
    checks=[Check(id="c", source=Source.USER_QUERY, description="Says hi.")],
)
BENCH = BenchmarkSpec.model_validate({"suite": "pacific", "source": {"path": "x.jsonl"}})


def fingerprint(**change):
    args = {
        "endpoint": ENDPOINT,
        "scaffold": SCAFFOLD,
        "scaffold_version": "builtin",
        "instance": INSTANCE,
        "benchmark": BENCH,
        **change,
    }
    return trial_fingerprint(**args)


def test_each_part_moves_with_what_it_covers_and_only_that():
    base = fingerprint()
    cases = {
        "endpoint": {"endpoint": ENDPOINT.model_copy(update={"model": "noisy:rate=0.9"})},
        "scaffold": {"scaffold_version": "2.0.69"},
        "instance": {"instance": INSTANCE.model_copy(update={"turns": ["Hello"]})},
        "suite": {"benchmark": BENCH.model_copy(update={"options": {"bindings": "b.yaml"}})},
    }
    for part, change in cases.items():
        moved = fingerprint(**change)
        assert changed_parts(base.parts, moved) == [part]
        assert moved.digest != base.digest
    assert set(base.parts) == set(FINGERPRINT_PARTS)


def test_what_does_not_decide_the_outcome_leaves_the_fingerprint_alone():
    base = fingerprint()
    keyed = ENDPOINT.model_copy(update={"api_key": {"env": "OTHER_KEY"}})
    limited = ENDPOINT.model_copy(
        update={"limits": ENDPOINT.limits.model_copy(update={"max_retries": 9})}
    )
    checked = INSTANCE.model_copy(update={"checks": []})  # checks decide scoring, not the run
    for same in (
        fingerprint(endpoint=keyed),
        fingerprint(endpoint=limited),
        fingerprint(instance=checked),
    ):
        assert same == base


def test_a_result_without_parts_is_not_compared_and_a_missing_part_is_a_change():
    base = fingerprint()
    assert changed_parts({}, base) == []
    partial = {k: v for k, v in base.parts.items() if k != "suite"}
    assert changed_parts(partial, base) == ["suite"]


def test_a_workspace_file_changes_the_instance_part():
    with_file = INSTANCE.model_copy(update={"workspace": Workspace(files={"a.py": "x = 1\n"})})
    edited = INSTANCE.model_copy(update={"workspace": Workspace(files={"a.py": "x = 2\n"})})
    assert changed_parts(fingerprint(instance=with_file).parts, fingerprint(instance=edited)) == [
        "instance"
    ]


def test_instances_naming_no_scaffold_keep_the_digest_they_had_before_the_field():
    from adhere.runner._fingerprint import _digest, instance_digest

    before_fields = INSTANCE.model_dump(mode="json", exclude={"checks", "scaffold"})
    del before_fields["workspace"]["layers"]  # neither field existed: the old dump lacked them
    assert instance_digest(INSTANCE) == _digest(before_fields)


def test_the_scaffold_an_instance_names_is_part_of_its_content():
    from adhere.core import ScaffoldRef

    bound = INSTANCE.model_copy(update={"scaffold": ScaffoldRef(name="claude-code", version="2")})
    other = INSTANCE.model_copy(update={"scaffold": ScaffoldRef(name="claude-code", version="3")})
    assert changed_parts(fingerprint(instance=bound).parts, fingerprint(instance=other)) == [
        "instance"
    ]
    assert changed_parts(fingerprint().parts, fingerprint(instance=bound)) == ["instance"]


def test_a_scaffold_s_version_is_its_cli_version_or_builtin() -> None:
    """A CLI scaffold is fingerprinted by its tool's version (a new CLI release is a
    new trial); an in-process scaffold, which has none, by ``builtin``."""
    assert scaffold_version(SimpleNamespace(tool=SimpleNamespace(version="2.0.69"))) == "2.0.69"
    assert scaffold_version(SimpleNamespace(tool=SimpleNamespace(version=None))) == "builtin"
    assert scaffold_version(object()) == "builtin"
