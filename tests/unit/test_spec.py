from pathlib import Path

import pytest

import adhere.core as core
import adhere.spec as spec
from adhere.core import Trial
from adhere.errors import SpecError
from adhere.spec import Endpoint, Rollout, load_instances, load_resources

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

ROLLOUT = """\
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {name: sweep}
spec:
  benchmark: bench
  models:
    - name: a
      endpoint: {baseUrl: "http://127.0.0.1:1/v1", model: m1, apiKey: {env: KEY_A}}
    - name: b
      endpoint: {api: anthropic, baseUrl: "http://127.0.0.1:1", model: m2}
  scaffolds: [chat]
  repeats: 3
"""


def write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        load_resources(write(tmp_path, text))
    return info.value


def test_rollout_sweeps_several_models(tmp_path: Path) -> None:
    (rollout,) = load_resources(write(tmp_path, ROLLOUT))
    assert isinstance(rollout, Rollout)
    assert [m.name for m in rollout.spec.models] == ["a", "b"]
    assert rollout.spec.models[1].endpoint.api == "anthropic"
    assert rollout.spec.models[0].endpoint.api_key is not None
    assert rollout.spec.models[0].endpoint.api_key.env == "KEY_A"
    assert rollout.spec.scaffolds[0].name == "chat"
    assert rollout.spec.repeats == 3


def test_examples_validate() -> None:
    files = sorted(p for p in EXAMPLES.rglob("*.yaml") if "apiVersion:" in p.read_text())
    assert files, "examples must hold specs"
    kinds = {r.kind for f in files for r in load_resources(f)}
    assert {"Benchmark", "Rollout"} <= kinds


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    err = error_of(tmp_path, "apiVersion: adhere.dev/v1alpha1\nkind: [Rollout\n")
    assert "spec.yaml" in str(err)
    assert "malformed YAML at line" in str(err)


def test_unknown_field_is_rejected_with_its_path(tmp_path: Path) -> None:
    err = error_of(tmp_path, ROLLOUT.replace("model: m2}", "model: m2, colour: red}"))
    assert err.field == "spec.models[1].endpoint.colour"
    assert "unknown field" in str(err)
    assert str(err).startswith(str(tmp_path / "spec.yaml"))


def test_missing_field_and_bad_value(tmp_path: Path) -> None:
    err = error_of(tmp_path, ROLLOUT.replace("  benchmark: bench\n", ""))
    assert err.field == "spec.benchmark"
    assert "required field is missing" in str(err)
    err = error_of(tmp_path, ROLLOUT.replace("repeats: 3", "repeats: 0"))
    assert err.field == "spec.repeats"
    assert "greater than or equal to 1" in str(err)


def test_wrong_kind_and_api_version(tmp_path: Path) -> None:
    err = error_of(tmp_path, ROLLOUT.replace("kind: Rollout", "kind: Rolout"))
    assert err.field == "kind"
    assert "Benchmark" in str(err)
    err = error_of(tmp_path, ROLLOUT.replace("adhere.dev/v1alpha1", "adhere.dev/v9"))
    assert err.field == "apiVersion"


def test_duplicate_model_names_and_bad_names(tmp_path: Path) -> None:
    err = error_of(tmp_path, ROLLOUT.replace("name: b", "name: a"))
    assert "duplicate model name 'a'" in str(err)
    err = error_of(tmp_path, ROLLOUT.replace("name: sweep", "name: Sweep_1"))
    assert err.field == "metadata.name"
    err = error_of(tmp_path, ROLLOUT.replace("name: b\n", "name: ../b\n"))
    assert err.field == "spec.models[1].name"


def test_api_key_source_needs_exactly_one() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Endpoint.model_validate({"baseUrl": "x", "model": "m", "apiKey": {}})
    with pytest.raises(ValueError, match="exactly one"):
        Endpoint.model_validate(
            {"baseUrl": "x", "model": "m", "apiKey": {"env": "A", "file": "/k"}}
        )


def test_benchmark_source_needs_exactly_one(tmp_path: Path) -> None:
    text = """\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {name: b}
spec:
  suite: pacific
  source: {path: a.jsonl, generate: {seed: 1}}
"""
    err = error_of(tmp_path, text)
    assert err.field == "spec.source"
    assert "exactly one" in str(err)


def test_multi_document_file(tmp_path: Path) -> None:
    bench = "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: bench}\n"
    bench += "spec: {suite: pacific, source: {path: x.jsonl}}\n"
    resources = load_resources(write(tmp_path, bench + "---\n" + ROLLOUT))
    assert [r.kind for r in resources] == ["Benchmark", "Rollout"]
    err = error_of(tmp_path, bench + "---\n" + ROLLOUT.replace("repeats: 3", "repeats: x"))
    assert "document 2" in str(err)


def test_trial_id_is_stable_and_distinct() -> None:
    a = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
    assert a.id == Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0).id
    others = [
        a.model_copy(update={field: value})
        for field, value in [("rollout", "r2"), ("model", "m2"), ("instance", "i2"), ("repeat", 1)]
    ]
    assert len({a.id, *(o.id for o in others)}) == 5


def test_instances_jsonl_errors_name_line_and_field(tmp_path: Path) -> None:
    good = '{"id": "a", "suite": "pacific", "turns": ["q"], "checks": '
    good += '[{"id": "c1", "source": "Answer", "description": "d"}]}'
    path = write(tmp_path, good + "\n" + good.replace('"source": "Answer"', '"source": "Nope"'))
    with pytest.raises(SpecError) as info:
        load_instances(path)
    assert ":2" in str(info.value)
    assert info.value.field == "checks[0].source"
    path = write(tmp_path, good + "\n" + good, "dup.jsonl")
    with pytest.raises(SpecError, match="duplicate instance id"):
        load_instances(path)
    path = write(tmp_path, good + "\n{oops\n", "bad.jsonl")
    with pytest.raises(SpecError, match="line 2: invalid JSON"):
        load_instances(path)


def test_public_names() -> None:
    assert spec.__all__ == sorted(spec.__all__)
    for name in ("Benchmark", "Rollout", "JudgePanel", "load_resources", "load_instances"):
        assert name in spec.__all__
    assert core.__all__ == sorted(core.__all__)
    for name in ("Instance", "Check", "Trial", "Trajectory", "Verdict", "ChatMessage"):
        assert name in core.__all__
        assert name not in spec.__all__
