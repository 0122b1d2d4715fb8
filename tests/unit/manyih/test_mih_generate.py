"""The sample generator: knobs, determinism, skipped problems, variants files."""

import json
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.suites.manyih import (
    GenerateParams,
    Problem,
    conflicts,
    generate,
    load_coding,
    load_problems,
    n_conflicts,
    parse_sample,
    variant_document,
    winners,
)
from tests.helpers import ROOT

DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


@pytest.fixture(scope="module")
def problems() -> list[Problem]:
    return load_problems(DATA)


def test_problems_from_the_published_file(problems: list[Problem]) -> None:
    assert len(problems) == 427
    first = problems[0]
    assert first.task_id == 594 and first.code.startswith("def diff_even_odd")


def test_default_knobs_match_the_published_shape(problems: list[Problem]) -> None:
    params = GenerateParams(n=25, seed=3)
    made = generate(problems, params)
    assert len(made.samples) == 25 and not made.skipped
    for record in made.samples:
        sample = parse_sample(record)  # loads like published data (expected_styles checked)
        assert len(sample.instructions) == 12
        assert len({i.privilege for i in sample.instructions}) == 12
        assert len({i.style_key for i in sample.instructions}) == 4
        assert 7 <= n_conflicts(sample) <= 11
        assert len(winners(sample)) == 6


@pytest.mark.parametrize(
    ("groups", "instructions", "tiers", "span", "won"),
    [(3, 8, 8, (2, 6), 4), (5, 14, 5, (5, 20), 8), (2, 6, 2, (0, 10), 3), (6, 12, None, (1, 9), 7)],
)
def test_knobs_are_respected(problems, groups, instructions, tiers, span, won) -> None:
    params = GenerateParams(
        n=12, groups=groups, instructions=instructions, tiers=tiers, conflicts=span,
        winners=won, seed=11,
    )  # fmt: skip
    made = generate(problems, params)
    assert made.samples
    for record in made.samples:
        sample = parse_sample(record)
        assert len({i.style_key for i in sample.instructions}) == groups
        assert len(sample.instructions) == instructions
        assert len({i.privilege for i in sample.instructions}) == (tiers or instructions)
        assert span[0] <= n_conflicts(sample) <= span[1]
        assert len(winners(sample)) == won
        for item in sample.instructions:  # the catalogue relation
            mine = {o.id for o in sample.instructions if conflicts(item.style_id, o.style_id)}
            assert set(item.conflicts_with) == mine


def test_ties_are_resolved_by_position(problems: list[Problem]) -> None:
    made = generate(problems, GenerateParams(n=30, instructions=12, tiers=3, seed=2,
                                             conflicts=(0, 30), winners=6))  # fmt: skip
    assert made.samples  # three levels for twelve instructions: ties everywhere
    for record in made.samples:
        sample = parse_sample(record)  # expected_styles (written by the generator) re-resolved
        assert len({i.privilege for i in sample.instructions}) == 3


def test_determinism(problems: list[Problem]) -> None:
    params = GenerateParams(n=10, seed=7)
    assert generate(problems, params).samples == generate(problems, params).samples
    other = generate(problems, GenerateParams(n=10, seed=8)).samples
    assert other != generate(problems, params).samples


def test_impossible_knobs_skip_problems(problems: list[Problem]) -> None:
    made = generate(problems, GenerateParams(n=3, conflicts=(40, 50), max_tries=5))
    assert made.samples == [] and made.skipped == [p.task_id for p in problems[:3]]
    doc = made.document(GenerateParams(n=3, conflicts=(40, 50), max_tries=5))
    assert doc["statistics"]["skipped_problems"] == made.skipped


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"groups": 13}, "groups"), ({"groups": 4, "instructions": 3}, "instructions"),
     ({"instructions": 8, "tiers": 9}, "tiers"), ({"conflicts": (5, 2)}, "conflicts"),
     ({"winners": 2}, "winners"), ({"n": 0}, "n")],
)  # fmt: skip
def test_bad_knobs(problems, kwargs, field) -> None:
    with pytest.raises(SpecError) as info:
        generate(problems, GenerateParams(**kwargs))
    assert info.value.field == field


def test_mbpp_style_problems(tmp_path: Path) -> None:
    path = tmp_path / "mbpp.jsonl"
    rows = [
        {"task_id": 1, "text": "Write a function `add(a, b)` to add.", "code":
         "def add(a, b):\n    return a + b", "test_list": ["assert add(1, 2) == 3"],
         "test_setup_code": "import math"},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    [problem] = load_problems(path)
    assert problem.tests == "['import math']\nassert add(1, 2) == 3"
    made = generate([problem], GenerateParams(seed=1, groups=3, instructions=6,
                                              conflicts=(0, 10), winners=4))  # fmt: skip
    assert len(made.samples) == 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"task_id": 1}]), encoding="utf-8")
    with pytest.raises(SpecError, match="missing field"):
        load_problems(bad)


def test_variant_document_loads_back(tmp_path: Path) -> None:
    samples = load_coding(DATA)[:4]
    doc = variant_document(samples, tiers=8, perturbations=2, seed=1)
    ids = [s["id"] for s in doc["data"]]
    assert ids[:3] == ["0000-t8", "0000-t8-p1", "0000-t8-p2"] and len(ids) == 12
    path = tmp_path / "v.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    loaded = load_coding(path)
    assert all(len(s.instructions) == 8 and 2 <= n_conflicts(s) <= 4 for s in loaded)
