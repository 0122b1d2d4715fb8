"""Planning: filters over instances, the trial product (crossing lists), stable trial ids."""

import pytest

from adhere.core import Check, Instance, Trial
from adhere.errors import SpecError
from adhere.runner import apply_filters, plan_trials
from adhere.scaffolds import version_support
from adhere.spec import Filters, Rollout


def instance(iid: str, **metadata) -> Instance:
    return Instance(
        id=iid,
        suite="pacific",
        turns=["hi"],
        checks=[Check(id="c", source="SP", kind="compliance", description="d")],
        metadata=metadata,
    )


INSTANCES = [
    instance("a", level="easy"),
    instance("b", level="hard"),
    instance("c", level="easy"),
    instance("d"),
]


def ids(instances) -> list[str]:
    return [i.id for i in instances]


def test_no_filter_keeps_every_instance_in_order() -> None:
    assert ids(apply_filters(INSTANCES, Filters())) == ["a", "b", "c", "d"]


def test_id_filter_keeps_the_benchmark_order_not_the_filter_order() -> None:
    assert ids(apply_filters(INSTANCES, Filters(ids=["c", "a"]))) == ["a", "c"]


def test_unknown_ids_are_a_spec_error_naming_file_field_and_ids() -> None:
    with pytest.raises(SpecError) as caught:
        apply_filters(INSTANCES, Filters(ids=["a", "zz", "yy"]), file="bench.yaml")
    assert caught.value.file == "bench.yaml" and caught.value.field == "spec.filters.ids"
    assert "unknown instance ids ['zz', 'yy']" in str(caught.value)


def test_only_the_first_five_unknown_ids_are_named() -> None:
    unknown = [f"x{n}" for n in range(7)]
    with pytest.raises(SpecError, match=r"\['x0', 'x1', 'x2', 'x3', 'x4'\]$"):
        apply_filters(INSTANCES, Filters(ids=unknown))


def test_metadata_filters_then_the_limit() -> None:
    easy = Filters(metadata={"level": ["easy"]})
    assert ids(apply_filters(INSTANCES, easy)) == ["a", "c"]
    both = Filters(metadata={"level": ["easy", "hard"]}, limit=2)
    assert ids(apply_filters(INSTANCES, both)) == ["a", "b"]
    # The limit applies after the other filters, not before.
    assert ids(apply_filters(INSTANCES, Filters(ids=["c", "d"], limit=1))) == ["c"]
    assert ids(apply_filters(INSTANCES, Filters(limit=4))) == ["a", "b", "c", "d"]


def test_filters_that_leave_nothing_are_a_spec_error() -> None:
    with pytest.raises(SpecError) as caught:
        apply_filters(INSTANCES, Filters(metadata={"level": ["medium"]}), file="b.yaml")
    assert caught.value.field == "spec.filters" and "leave no instance" in str(caught.value)


def rollout(repeats: int = 2) -> Rollout:
    return Rollout.model_validate(
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Rollout",
            "metadata": {"name": "r"},
            "spec": {
                "benchmark": "b",
                "models": [
                    {"name": "m1", "endpoint": {"baseUrl": "scripted", "model": "oracle"}},
                    {"name": "m2", "endpoint": {"baseUrl": "scripted", "model": "oracle"}},
                ],
                "scaffolds": ["chat", "reference"],
                "repeats": repeats,
            },
        }
    )


def test_trials_are_models_by_scaffolds_by_instances_by_repeats_in_that_order() -> None:
    versions = {name: version_support(name) for name in ("chat", "reference")}
    trials = plan_trials(rollout(), INSTANCES[:2], versions).trials
    assert len(trials) == 2 * 2 * 2 * 2
    assert [(t.model, t.scaffold, t.instance, t.repeat) for t in trials[:5]] == [
        ("m1", "chat", "a", 0),
        ("m1", "chat", "a", 1),
        ("m1", "chat", "b", 0),
        ("m1", "chat", "b", 1),
        ("m1", "reference", "a", 0),
    ]
    assert trials[-1] == Trial(
        rollout="r", model="m2", scaffold="reference", instance="b", repeat=1
    )
    assert len({t.id for t in trials}) == len(trials)


def test_a_trial_id_is_stable_and_depends_on_every_field() -> None:
    """A rerun finds its finished trials because the same trial always has the same id."""
    base = dict(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
    assert Trial(**base).id == Trial(**base).id
    assert len(Trial(**base).id) == 20
    others = [
        Trial(**{**base, "rollout": "r2"}),
        Trial(**{**base, "model": "m2"}),
        Trial(**{**base, "scaffold": "reference"}),
        Trial(**{**base, "instance": "j"}),
        Trial(**{**base, "repeat": 1}),
        # Fields are joined with a separator that cannot run into each other.
        Trial(**{**base, "model": "mc", "scaffold": "hat"}),
    ]
    assert len({Trial(**base).id, *(t.id for t in others)}) == 1 + len(others)
