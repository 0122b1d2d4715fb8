"""Trial-result fingerprints: what changes them, what does not, and how changes are named."""

import dataclasses
import hashlib
import json

import pytest

from adhere.core import Check, Instance
from adhere.runner._fingerprint import (
    FINGERPRINT_PARTS,
    Fingerprint,
    changed_parts,
    describe_change,
    endpoint_view,
    trial_fingerprint,
)
from adhere.spec import BenchmarkSpec, Endpoint, ScaffoldSpec


def sha16(data) -> str:
    """The documented digest: SHA-256 of the canonical JSON, first 16 hex digits."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


ENDPOINT = Endpoint(api="openai", base_url="scripted", model="oracle")
SCAFFOLD = ScaffoldSpec(name="chat")
INSTANCE = Instance(
    id="i1",
    suite="pacific",
    system_prompt="Be brief.",
    turns=["Say hi."],
    checks=[Check(id="c1", source="SP", kind="compliance", description="brief")],
)
BENCHMARK = BenchmarkSpec.model_validate(
    {"suite": "pacific", "source": {"path": "x.jsonl"}, "options": {"mode": "chat"}}
)


def fingerprint(**changes) -> Fingerprint:
    args = {
        "endpoint": ENDPOINT,
        "scaffold": SCAFFOLD,
        "scaffold_version": "builtin",
        "instance": INSTANCE,
        "benchmark": BENCHMARK,
        **changes,
    }
    return trial_fingerprint(**args)


def test_each_part_is_the_digest_of_what_it_covers() -> None:
    """Stored fingerprints stay comparable across releases: the format is fixed."""
    fp = fingerprint()
    assert fp.parts["endpoint"] == sha16(
        {
            "api": "openai",
            "base_url": "scripted",
            "model": "oracle",
            "stream": False,
            "max_tokens": 4096,
            "temperature": 0.0,
            "controls": {},
        }
    )
    assert fp.parts["scaffold"] == sha16(
        {"name": "chat", "version": "builtin", "options": {}, "timeout_seconds": 1800.0}
    )
    assert fp.parts["suite"] == sha16({"suite": "pacific", "options": {"mode": "chat"}})
    instance = INSTANCE.model_dump(mode="json")
    del instance["checks"]  # checks decide scoring, not the run
    del instance["scaffold"]  # it names none: left out, as before the field existed
    del instance["workspace"]["layers"]  # where directories lie, not what they hold
    assert fp.parts["instance"] == sha16(instance)
    assert fp.digest == sha16([fp.parts[name] for name in FINGERPRINT_PARTS])
    assert len(fp.digest) == 16 and set(FINGERPRINT_PARTS) == set(fp.parts)


@pytest.mark.parametrize(
    ("part", "changes"),
    [
        ("endpoint", {"endpoint": ENDPOINT.model_copy(update={"model": "noisy"})}),
        ("endpoint", {"endpoint": ENDPOINT.model_copy(update={"api": "anthropic"})}),
        ("endpoint", {"endpoint": ENDPOINT.model_copy(update={"base_url": "http://h/v1"})}),
        ("endpoint", {"endpoint": ENDPOINT.model_copy(update={"stream": True})}),
        ("endpoint", {"endpoint": ENDPOINT.model_copy(update={"max_tokens": 100})}),
        ("endpoint", {"endpoint": ENDPOINT.model_copy(update={"temperature": 0.7})}),
        (
            "endpoint",
            {
                "endpoint": Endpoint.model_validate(
                    {
                        "api": "openai",
                        "baseUrl": "scripted",
                        "model": "oracle",
                        "controls": {"reasoningEffort": "low"},
                    }
                )
            },
        ),
        ("scaffold", {"scaffold_version": "1.2.3"}),
        ("scaffold", {"scaffold": ScaffoldSpec(name="reference")}),
        ("scaffold", {"scaffold": ScaffoldSpec(name="chat", options={"x": 1})}),
        ("scaffold", {"scaffold": ScaffoldSpec(name="chat", timeout_seconds=60)}),
        ("instance", {"instance": INSTANCE.model_copy(update={"turns": ["Say bye."]})}),
        ("instance", {"instance": INSTANCE.model_copy(update={"system_prompt": ""})}),
        ("suite", {"benchmark": BENCHMARK.model_copy(update={"options": {}})}),
        ("suite", {"benchmark": BENCHMARK.model_copy(update={"suite": "manyih"})}),
    ],
)
def test_a_change_of_config_changes_exactly_its_part(part, changes) -> None:
    """Changing what decides a trial's outcome marks that part, and only it, changed."""
    before, after = fingerprint(), fingerprint(**changes)
    assert changed_parts(before.parts, after) == [part]
    assert before.digest != after.digest


def test_non_ascii_content_is_hashed_as_written() -> None:
    """The canonical JSON keeps characters as they are (UTF-8), so the digest is stable."""
    french = INSTANCE.model_copy(update={"system_prompt": "Réponds en français, s’il te plaît."})
    instance = french.model_dump(mode="json")
    del instance["checks"], instance["scaffold"], instance["workspace"]["layers"]
    assert fingerprint(instance=french).parts["instance"] == sha16(instance)


def test_a_fingerprint_is_a_value() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        fingerprint().parts = {}  # type: ignore[misc]


def test_what_decides_no_outcome_leaves_the_fingerprint_alone() -> None:
    """The API key, client limits and an instance's checks do not change a fingerprint."""
    same = fingerprint(
        endpoint=Endpoint.model_validate(
            {
                "api": "openai",
                "baseUrl": "scripted",
                "model": "oracle",
                "apiKey": {"env": "KEY"},
                "limits": {"maxRetries": 9, "timeoutSeconds": 5},
            }
        ),
        instance=INSTANCE.model_copy(
            update={"checks": [Check(id="c2", source="SP", kind="compliance", description="x")]}
        ),
    )
    assert same == fingerprint()
    assert changed_parts(fingerprint().parts, same) == []


def test_changed_parts_keeps_the_part_order_and_treats_missing_parts_as_changed() -> None:
    planned = fingerprint()
    stored = dict(planned.parts, suite="0" * 16, endpoint="1" * 16)
    assert changed_parts(stored, planned) == ["endpoint", "suite"]
    partial = {k: v for k, v in planned.parts.items() if k != "scaffold"}
    assert changed_parts(partial, planned) == ["scaffold"]
    # A result written before fingerprints has nothing to compare: never "changed".
    assert changed_parts({}, planned) == []


def test_describe_change_names_each_changed_key_with_old_and_new_values() -> None:
    before = endpoint_view(ENDPOINT)
    after = endpoint_view(ENDPOINT.model_copy(update={"model": "noisy", "temperature": 0.5}))
    assert describe_change(before, after) == [
        'model: "oracle" → "noisy"',
        "temperature: 0.0 → 0.5",
    ]
    assert describe_change(before, before) == []
    # A key only one side has is shown against null.
    assert describe_change({"a": 1}, {"b": [1, 2]}) == ["a: 1 → null", "b: null → [1, 2]"]
    # Values read as written: characters as they are, a mapping's keys in order.
    assert describe_change({"m": "café"}, {"m": {"z": 1, "a": 2}}) == [
        'm: "café" → {"a": 2, "z": 1}'
    ]


def test_describe_change_shortens_long_values_to_80_characters() -> None:
    long = "x" * 200
    (line,) = describe_change({"k": long}, {"k": "y"})
    old = line.removeprefix("k: ").split(" → ")[0]
    assert len(old) == 80 and old.endswith("…") and old.startswith('"xxx')
    exactly = "z" * 78  # 80 characters once quoted: kept whole
    (line,) = describe_change({"k": exactly}, {"k": 1})
    assert line == f'k: "{exactly}" → 1'


def test_reasoning_is_part_of_the_endpoint_only_when_set() -> None:
    plain = endpoint_view(ENDPOINT)
    assert "reasoning" not in plain  # results fingerprinted before it stay current
    thinking = Endpoint.model_validate(
        {**ENDPOINT.model_dump(by_alias=True), "reasoning": {"effort": "high"}}
    )
    assert endpoint_view(thinking) == {**plain, "reasoning": {"effort": "high"}}
    assert endpoint_view(thinking) != endpoint_view(
        Endpoint.model_validate(
            {**ENDPOINT.model_dump(by_alias=True), "reasoning": {"effort": "low"}}
        )
    )
