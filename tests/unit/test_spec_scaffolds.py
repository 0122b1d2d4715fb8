"""The Rollout's scaffolds: `fromInstance`, `instances: own` and `version`."""

import pytest
from pydantic import ValidationError

from adhere.spec import FROM_INSTANCE, Rollout, ScaffoldSpec


def rollout(scaffolds):
    return Rollout.model_validate(
        {
            "metadata": {"name": "r"},
            "spec": {
                "benchmark": "b",
                "models": [{"name": "m", "endpoint": {"baseUrl": "http://h/v1", "model": "x"}}],
                "scaffolds": scaffolds,
            },
        }
    )


def test_from_instance_is_shorthand_for_one_wildcard_entry():
    (entry,) = rollout("fromInstance").spec.scaffolds
    assert entry.name == FROM_INSTANCE and entry.bound
    assert entry.version is None and entry.options == {}


def test_list_entries_cross_unless_they_say_own():
    crossing, own = rollout(["chat", {"name": "kilo", "instances": "own"}]).spec.scaffolds
    assert (crossing.instances, crossing.bound) == ("all", False)
    assert (own.instances, own.bound) == ("own", True)


@pytest.mark.parametrize("version", ["2.0.69", "fromInstance", "0.225.2", "1.0.0-beta.1"])
def test_versions(version):
    assert ScaffoldSpec(name="claude-code", version=version).version == version


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "claude-code", "version": ""}, "expected a version such as '2.0.69'"),
        ({"name": "claude-code", "version": "../x"}, "expected a version"),
        ({"name": "fromInstance", "options": {"a": 1}}, "takes no options"),
        ({"name": "fromInstance", "instances": "own"}, "no 'instances' setting"),
        ({"name": "fromInstance", "version": "2.0.69"}, "its version is 'fromInstance'"),
        ({"name": "kilo", "instances": "some"}, "'all' or 'own'"),
    ],
)
def test_bad_entries(entry, message):
    with pytest.raises(ValidationError, match=message):
        rollout([entry])


def test_the_shorthand_round_trips_through_a_dump():
    first = rollout("fromInstance")
    dumped = first.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert Rollout.model_validate(dumped) == first
