"""docs/reproduce.md: every file it names exists, and every rollout it names plans the
trials the paper's table needs, with the paper's decoding settings."""

import json
import re
from collections import Counter

import pytest

from adhere.runner import check_run
from adhere.spec import Rollout, load_resources, load_run_config
from tests.helpers import ROOT

DOC = ROOT / "docs" / "reproduce.md"
MANYIH_DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


def named_paths() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return sorted(set(re.findall(r"`(examples/[^`\s]+)`", text)))


def plan(path: str) -> tuple[dict[str, int], int]:
    """Trials per model as `adhere plan` counts them (its checks included), and instances."""
    config = load_run_config((str(ROOT / path),))
    checked = check_run(config, secrets=False, local=False)
    return dict(Counter(trial.model for trial in checked.trials)), len(checked.instances)


def rollout(path: str) -> Rollout:
    (found,) = [r for r in load_resources(ROOT / path) if isinstance(r, Rollout)]
    return found


def test_every_file_the_guide_names_exists() -> None:
    paths = named_paths()
    assert "examples/manyih-paper/" in paths
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"docs/reproduce.md names files that do not exist: {missing}"


def manyih_samples() -> int:
    return len(json.loads(MANYIH_DATA.read_text(encoding="utf-8"))["data"])


@pytest.mark.parametrize(
    ("name", "per_sample"),
    [
        ("rollout-main.yaml", 1),  # each published sample once
        ("rollout-scalar.yaml", 1),
        ("rollout-tiers.yaml", 3),  # the 6-, 8- and 12-tier variants
        ("rollout-perturb.yaml", 2),  # the original and one perturbation
        ("rollout-effort.yaml", 1),
    ],
)
def test_manyih_rollouts_plan_every_published_sample(name: str, per_sample: int) -> None:
    path = f"examples/manyih-paper/{name}"
    spec = rollout(path).spec
    per_model, _ = plan(path)
    expected = manyih_samples() * per_sample
    assert per_model == {m.name: expected for m in spec.models}
    # §6.1: 40K tokens, temperature 0, reasoning effort high (the effort sweep varies it)
    for model in spec.models:
        endpoint = model.endpoint
        assert endpoint.max_tokens == 40000
        assert endpoint.temperature == 0
        assert endpoint.reasoning is not None
        if name != "rollout-effort.yaml":
            assert endpoint.reasoning.effort == "high"


def test_manyih_effort_sweep_gives_each_model_every_effort() -> None:
    spec = rollout("examples/manyih-paper/rollout-effort.yaml").spec
    efforts: dict[str, set[str]] = {}
    for model in spec.models:
        assert model.endpoint.reasoning is not None
        efforts.setdefault(model.endpoint.model, set()).add(str(model.endpoint.reasoning.effort))
    assert len(efforts) == 3
    assert all(e == {"none", "low", "medium", "high"} for e in efforts.values())


def test_vericode_paper_rollout_covers_k_0_to_5_in_both_protocols() -> None:
    path = "examples/vericode/rollout-paper.yaml"
    spec = rollout(path).spec
    per_model, instances = plan(path)
    assert instances > 0
    assert per_model == {m.name: instances for m in spec.models}
    for model in spec.models:
        assert model.endpoint.max_tokens == 32768
        assert model.endpoint.temperature == 0
    benchmark = next(r for r in load_resources(ROOT / path) if r.kind == "Benchmark")
    assert benchmark.spec.options["protocol"] == "paper"
    assert benchmark.spec.options["ks"] == [0, 1, 2, 3, 4, 5]
    assert benchmark.spec.options["protocols"] == ["single", "multi"]


def test_pacific_paper_file_plans_the_papers_grid_under_its_protocol() -> None:
    path = "examples/pacific-sweep/paper.yaml"
    spec = rollout(path).spec
    benchmark = next(r for r in load_resources(ROOT / path) if r.kind == "Benchmark")
    grid = benchmark.spec.source.generate
    assert grid is not None
    assert grid["instructions"] == [3, 5, 8, 10, 15]  # §4
    assert grid["lengths"] == [3, 5, 10]
    languages = 3  # Python, Java, C++
    samples = len(grid["instructions"]) * len(grid["lengths"]) * grid["perLanguage"] * languages
    per_model, instances = plan(path)
    assert instances == samples
    assert per_model == {m.name: samples for m in spec.models}
    assert benchmark.spec.options["protocol"] == "paper"


def test_guidebench_paper_files_use_its_protocol_and_every_public_category() -> None:
    path = "examples/guidebench-paper/rollout.yaml"
    spec = rollout(path).spec
    per_model, instances = plan(path)
    categories = {"price", "relevance", "math", "chat", "summary", "hallucination"}
    benchmarks = [
        r
        for f in sorted((ROOT / "examples" / "guidebench-paper").glob("*.yaml"))
        for r in load_resources(f)
        if r.kind == "Benchmark"
    ]
    assert benchmarks and all(b.spec.options["protocol"] == "paper" for b in benchmarks)
    (main,) = [b for b in benchmarks if b.metadata.name == spec.benchmark]
    assert instances == main.spec.options["perCategory"] * len(categories)
    assert per_model == {m.name: instances for m in spec.models}
