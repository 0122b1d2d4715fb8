"""Bad input measured on main, each now a clear error naming file, field (or line) and expectation.

Checked through ``validate_files``: what ``adhere validate`` runs, and what ``adhere
run`` runs before its first trial (``prepare`` calls the same ``check_run``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adhere.errors import AdhereError, SecretError, SpecError
from adhere.runner import prepare, validate_files
from adhere.spec import load_instances, load_resources, load_run_config, parse_json
from tests.helpers import ROOT, bench_yaml, model, rollout_yaml

EXAMPLES = ROOT / "examples"


def specs(tmp_path: Path, bench: str, rollout: str, *extra: tuple[str, str]) -> list[Path]:
    files = [tmp_path / "benchmark.yaml", tmp_path / "rollout.yaml"]
    files[0].write_text(bench, encoding="utf-8")
    files[1].write_text(rollout, encoding="utf-8")
    for name, text in extra:
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(tmp_path / name)
    return files


def error(files: list[Path], **kwargs: object) -> AdhereError:
    with pytest.raises(AdhereError) as caught:
        validate_files(files, **kwargs)  # type: ignore[arg-type]
    return caught.value


ORACLE = model("oracle", "oracle")


# --- reading files ------------------------------------------------------------------


def test_a_spec_that_is_not_utf8_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "rollout.yaml"
    path.write_bytes(b"apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: \xff}\n")
    with pytest.raises(SpecError) as caught:
        load_resources(path)
    assert str(caught.value) == (
        f"{path}: line 3, column 18: not UTF-8 text (byte 0xff at offset 63); "
        "save the file as UTF-8"
    )


def test_a_dataset_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "instances.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "\xc3\x28"}\n')
    with pytest.raises(SpecError, match=r"instances.jsonl: line 2, column 9: not UTF-8"):
        load_instances(path)


@pytest.mark.parametrize("depth", [150, 5000, 100_000])
def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "benchmark.yaml"
    nested = "[" * depth + "1" + "]" * depth
    path.write_text(bench_yaml().replace("seed: 7", f"seed: 7\n      extra: {nested}"))
    with pytest.raises(SpecError) as caught:
        load_resources(path)
    assert str(caught.value) == f"{path}: line 12: values nested deeper than 100 levels"
    data = tmp_path / "tasks.json"
    data.write_text('{"a": 1,\n "b": ' + nested + "}")
    with pytest.raises(SpecError) as caught:
        parse_json(data.read_text(), file=str(data))
    assert str(caught.value) == f"{data}: line 2: values nested deeper than 100 levels"


def test_anchors_that_expand_without_bound_or_contain_themselves(tmp_path: Path) -> None:
    path = tmp_path / "rollout.yaml"
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    path.write_text("\n".join(lines))
    with pytest.raises(SpecError, match="expand to more than 2,000,000 values"):
        load_resources(path)
    path.write_text("apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nspec: &s {models: *s}\n")
    with pytest.raises(SpecError, match="line 3: a value contains itself"):
        load_resources(path)


def test_an_integer_too_long_to_read(tmp_path: Path) -> None:
    path = tmp_path / "benchmark.yaml"
    path.write_text(bench_yaml(per_language="9" * 5000))
    with pytest.raises(SpecError) as caught:
        load_resources(path)
    assert str(caught.value) == f"{path}: line 10: an integer has more than 4,300 digits"


def test_kind_given_as_a_list(tmp_path: Path) -> None:
    path = tmp_path / "benchmark.yaml"
    path.write_text(bench_yaml().replace("kind: Benchmark", "kind: [Benchmark]"))
    with pytest.raises(SpecError) as caught:
        load_resources(path)
    assert str(caught.value) == (
        f"{path}: kind: expected one of ['Benchmark', 'JudgePanel', 'Rollout'], got ['Benchmark']"
    )


def test_duplicate_yaml_keys_name_file_line_and_key(tmp_path: Path) -> None:
    """Measured on main: ``perLanguage: 2`` then ``999`` silently planned 35,964 trials."""
    path = tmp_path / "benchmark.yaml"
    path.write_text(bench_yaml(per_language=2).replace(
        "perLanguage: 2\n", "perLanguage: 2\n      perLanguage: 999\n"))  # fmt: skip
    with pytest.raises(SpecError) as caught:
        load_resources(path)
    assert str(caught.value) == (
        f"{path}: line 11: duplicate key 'perLanguage' (first given at line 10); "
        "a key may appear once in a mapping"
    )


def test_a_duplicate_key_in_a_bindings_file(tmp_path: Path) -> None:
    path = tmp_path / "bindings.yaml"
    path.write_text("bindings:\n  - match: {check_id: a, check_id: b}\n    verifier: no_emoji\n")
    with pytest.raises(SpecError, match=r"bindings.yaml: line 2: duplicate key 'check_id'"):
        validate_files([path])


# --- what run checks, validate checks -----------------------------------------------


def test_wrongly_typed_generator_parameters(tmp_path: Path) -> None:
    """Measured on main: validate accepted ``perLanguage: "two"``; run raised TypeError."""
    files = specs(tmp_path, bench_yaml(per_language='"two"'), rollout_yaml(ORACLE))
    exc = error(files)
    assert str(exc) == (
        f"{files[0]}: spec.source.generate.perLanguage: expected an integer, got 'two'"
    )
    with pytest.raises(SpecError) as at_run:  # run stops at the same check, before any trial
        prepare(load_run_config([files[1]]))
    assert str(at_run.value) == str(exc)


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        ("instructions: [3, 5]", "instructions", "expected an integer or a non-empty list"),
        ("lengths: [3, 5]", "lengths", "a value is listed twice"),
        ("mode: prompt", "mode", "expected a word"),
        ("perLanguage: 1", "perLanguage", "expected 1 to 1000 samples per language"),
    ],
)
def test_generator_parameter_types_and_bounds(
    tmp_path: Path, change: str, field: str, expected: str
) -> None:
    key = change.split(":")[0]
    bad = {"instructions": '[3, "5"]', "lengths": "[3, 3]", "mode": "[prompt]",
           "perLanguage": "10000000"}[key]  # fmt: skip
    bench = bench_yaml().replace(change, f"{key}: {bad}")
    exc = error(specs(tmp_path, bench, rollout_yaml(ORACLE)))
    assert f"benchmark.yaml: spec.source.generate.{field}: {expected}" in str(exc)


def test_a_grid_too_large_to_generate(tmp_path: Path) -> None:
    bench = bench_yaml(instructions="[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", per_language=1000)
    exc = error(specs(tmp_path, bench, rollout_yaml(ORACLE)))
    assert "spec.source.generate: these parameters ask for 60,000 samples; at most 50,000" in str(
        exc
    )


@pytest.mark.parametrize(
    "base",
    ["not a url", "ftp://example.com/v1", "https://", "http://host:port/v1", "https://a b/v1"],
)
def test_a_base_url_that_is_not_a_url(tmp_path: Path, base: str) -> None:
    """Measured on main: validate accepted it; run died with ValueError in the proxy."""
    files = specs(tmp_path, bench_yaml(), rollout_yaml(model("m", "oracle", base=base)))
    exc = error(files)
    assert f"{files[1]}: spec.models[0].endpoint.baseUrl: expected an http(s) URL" in str(exc)


def test_an_unknown_provider_name_suggests_the_close_one(tmp_path: Path) -> None:
    files = specs(tmp_path, bench_yaml(), rollout_yaml(model("m", "oracle", base="scriptd")))
    assert str(error(files)).startswith(
        f"{files[1]}: spec.models[0].endpoint.baseUrl: unknown provider 'scriptd'; "
        "did you mean 'scripted'?"
    )


def test_an_unknown_scaffold_suggests_the_close_one(tmp_path: Path) -> None:
    rollout = rollout_yaml(ORACLE).replace(
        "  parallelism", "  scaffolds: [claude_code]\n  parallelism"
    )
    files = specs(tmp_path, bench_yaml(), rollout)
    assert str(error(files)).startswith(
        f"{files[1]}: spec.scaffolds[0].name: unknown scaffold 'claude_code'; "
        "did you mean 'claude-code'?"
    )


def test_scaffold_options_are_typed(tmp_path: Path) -> None:
    scaffolds = "  scaffolds: [{name: reference, options: {max_steps: ten}}]\n"
    rollout = rollout_yaml(ORACLE).replace("  parallelism", scaffolds + "  parallelism")
    files = specs(tmp_path, bench_yaml(), rollout)
    assert str(error(files)) == (
        f"{files[1]}: spec.scaffolds[0].options.max_steps: bad options for scaffold "
        "'reference': max_steps: Input should be a valid integer, got 'ten'"
    )


def test_suite_options_are_checked(tmp_path: Path) -> None:
    bench = bench_yaml() + "  options: {colour: red}\n"
    files = specs(tmp_path, bench, rollout_yaml(ORACLE))
    assert str(error(files)) == (
        f"{files[0]}: spec.options: unknown PACIFIC options ['colour']; accepted: protocol, "
        "selection, prompt, parse, templates"
    )


@pytest.mark.parametrize(
    ("model_string", "expected"),
    [
        ("oracel", "unknown policy 'oracel'"),
        ("noisy:rate=2", "rate"),
        ("noisy:rate=0.1,colour=red", "colour"),
        ("noisy:", "nothing after ':'"),
    ],
)
def test_the_scripted_model_string_is_checked(
    tmp_path: Path, model_string: str, expected: str
) -> None:
    files = specs(tmp_path, bench_yaml(), rollout_yaml(model("m", model_string)))
    message = str(error(files))
    assert message.startswith(f"{files[1]}: spec.models[0].endpoint.model: ")
    assert expected in message


def test_api_pairings_the_run_cannot_serve(tmp_path: Path) -> None:
    local = model("m", "smollm2", api="gemini", base="local-model")
    files = specs(tmp_path, bench_yaml(), rollout_yaml(local))
    assert str(error(files)) == (
        f"{files[1]}: spec.models[0].endpoint.api: the local model server speaks anthropic, "
        "openai, openai-responses, not 'gemini' (model 'smollm2')"
    )
    panel = (
        "apiVersion: adhere.dev/v1alpha1\nkind: JudgePanel\nmetadata: {name: p}\nspec:\n"
        "  judges:\n    - name: j\n      endpoint: {api: gemini, baseUrl: scripted, model: judge}\n"
    )
    rollout = rollout_yaml(ORACLE).replace("  parallelism", "  judgePanel: p\n  parallelism")
    files = specs(tmp_path, bench_yaml(), rollout, ("judges.yaml", panel))
    assert str(error(files)) == (
        f"{files[2]}: spec.judges[0].endpoint.api: a judge needs an openai or anthropic "
        "endpoint (adhere's own client calls it), not 'gemini'"
    )


def test_missing_secrets_are_named_never_shown(tmp_path: Path) -> None:
    key = ", apiKey: {env: ADHERE_TEST_KEY_NOT_SET}"
    remote = model("m", "gpt", base="https://api.example.com/v1", extra=key)
    files = specs(tmp_path, bench_yaml(), rollout_yaml(remote))
    exc = error(files, env={})
    assert isinstance(exc, SecretError)
    assert str(exc).startswith(
        f"{files[1]}: spec.models[0].endpoint.apiKey: API key environment variable "
        "ADHERE_TEST_KEY_NOT_SET is not set"
    )
    secret = "sk-test-secret-value-1234"
    done = validate_files(files, env={"ADHERE_TEST_KEY_NOT_SET": secret})
    assert secret not in "\n".join(line for d in done for line in d.lines)
    assert validate_files(files, env={}, secrets=False)  # skipped on request
    key_file = tmp_path / "missing-key.txt"
    remote = model("m", "gpt", base="https://api.example.com/v1",
                   extra=f", apiKey: {{file: {key_file}}}")  # fmt: skip
    files = specs(tmp_path, bench_yaml(), rollout_yaml(remote))
    assert f"API key file {key_file} does not exist" in str(error(files, env={}))


def test_bindings_must_resolve(tmp_path: Path) -> None:
    sample = tmp_path / "sample"
    shutil.copytree(EXAMPLES / "octobench-sample", sample)
    bindings = sample / "bindings.yaml"
    bindings.write_text(bindings.read_text().replace("verifier: skill_invoked", "verifier: skill"))
    files = sorted(sample.glob("*.yaml"))
    message = str(error(files))
    assert message.startswith(f"{bindings}: bindings[7].verifier.name: unknown verifier 'skill'")
    bindings.write_text(
        "bindings:\n  - match: {check_id: x}\n    verifier: {name: no_emoji, params: {scope: al}}\n"
    )
    message = str(error([sample / "benchmark.yaml"]))
    assert message.startswith(f"{bindings}: bindings[0].verifier.params.scope:")


def test_the_octobench_sample_validates_bindings_file_and_all(tmp_path: Path) -> None:
    """Measured on main: ``adhere validate examples/octobench-sample/*.yaml`` failed."""
    files = sorted((EXAMPLES / "octobench-sample").glob("*.yaml"))
    said = {d.file: d.lines for d in validate_files(files)}
    bindings = str(EXAMPLES / "octobench-sample" / "bindings.yaml")
    assert said[bindings] == [f"{bindings}: verifier bindings ok (10 rules)"]
    rollout = str(EXAMPLES / "octobench-sample" / "rollout.yaml")
    assert said[rollout][0] == (
        f"{rollout}: Rollout octobench-sample ok: 8 instances × 2 models × 1 repeat under "
        "claude-code 2.1.197, kilo 7.7.7, droid 0.225.2, reference builtin = 64 trials"
    )


def test_an_example_benchmark_alone_is_loaded(tmp_path: Path) -> None:
    done = validate_files([EXAMPLES / "octobench-conflict" / "benchmark.yaml"])
    assert done[0].lines[0].endswith("Benchmark octobench-conflict ok: 5 instances, 15 checks")
