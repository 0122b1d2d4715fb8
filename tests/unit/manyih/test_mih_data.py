"""The published coding subset: loader, counts, winners, conflicts, quirks, load errors."""

import json
import statistics
from collections import Counter
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.suites.manyih import (
    GROUPS,
    SLOW_TASKS,
    STYLES,
    CodingSample,
    conflicts,
    load_coding,
    n_conflicts,
    render_prompt,
    split_tests,
    tagged,
    winners,
    winners_from_prompt,
)
from tests.helpers import ROOT

DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


@pytest.fixture(scope="module")
def samples() -> list[CodingSample]:
    return load_coding(DATA)


def test_counts_and_fields(samples: list[CodingSample]) -> None:
    assert len(samples) == 427
    assert [s.id for s in samples] == list(range(427))
    assert len({s.task_id for s in samples}) == 427
    for sample in samples:
        assert len(sample.instructions) == 12
        assert len({i.privilege for i in sample.instructions}) == 12  # distinct
        assert all(1 <= i.privilege <= 100 for i in sample.instructions)
        assert len({i.style_key for i in sample.instructions}) == 4  # style groups
        assert len(winners(sample)) == 6
        assert sample.metadata["n_conflicts"] == n_conflicts(sample)
    counts = [n_conflicts(s) for s in samples]
    assert (min(counts), max(counts)) == (7, 11)
    assert round(statistics.mean(counts), 1) == 9.8


def test_catalogue_has_41_styles_in_12_groups() -> None:
    assert len(STYLES) == 41 and len(GROUPS) == 12
    assert sorted(len(v) for v in GROUPS.values()) == [3] * 7 + [4] * 5
    for sid, style in STYLES.items():
        for other in style.conflicts_with:
            assert sid in STYLES[other].conflicts_with and STYLES[other].group == style.group


def test_data_conflicts_are_the_catalogue_relation(samples: list[CodingSample]) -> None:
    seen = set()
    for sample in samples:
        by_id = {i.id: i for i in sample.instructions}
        for item in sample.instructions:
            mine = {o.id for o in sample.instructions if conflicts(item.style_id, o.style_id)}
            assert set(item.conflicts_with) == mine, (sample.id, item.style_id)
            seen.update(frozenset((item.style_id, by_id[c].style_id)) for c in item.conflicts_with)
    assert {s for pair in seen for s in pair} <= set(STYLES)


def test_expected_styles_are_the_resolved_winners_in_both_interfaces(
    samples: list[CodingSample],
) -> None:
    for sample in samples:
        expected = sorted(s for v in sample.metadata["expected_styles"].values() for s in v)
        text = {i.description: i.style_id for i in sample.instructions}
        assert sorted(winners(sample)) == expected
        # straight from the published (ordinal) prompt …
        assert sorted(winners_from_prompt(sample.prompt, text.__getitem__, conflicts)) == expected
        # … and from the scalar rendering of the same sample
        scalar = render_prompt(sample.original_prompt, tagged(sample), "scalar")
        assert sorted(winners_from_prompt(scalar, text.__getitem__, conflicts)) == expected


def test_quirk_import_list_line(samples: list[CodingSample]) -> None:
    """Data quirk: test code starting with the line ``['import math']``."""
    quirky = [s for s in samples if split_tests(s.test_code)[2]]
    assert len(quirky) == 13
    assert all(s.test_code.startswith("['import math']\n") for s in quirky)
    setup, tests, quirks = split_tests(quirky[0].test_code)
    assert setup == "import math" and quirks == ["import-list line"]
    assert tests.startswith("assert ") and "['import math']" not in tests
    # 10 of them rely on that line: their reference code does not import math itself
    relying = [s for s in quirky if "import math" not in s.reference_code]
    assert len(relying) == 10


def test_quirk_slow_test_is_named(samples: list[CodingSample]) -> None:
    """Data quirk: one task's tests need more than the public 5 s (run in the sandbox test)."""
    assert set(SLOW_TASKS) == {123}
    slow = next(s for s in samples if s.task_id == 123)
    assert slow.id == 103 and "9999" in slow.test_code


def _write(tmp_path: Path, sample: dict) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"data": [sample]}), encoding="utf-8")
    return path


@pytest.fixture
def raw_sample() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))["data"][0]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda s: s["instructions"][0].update(style_id="indent_3"), "data[0].instructions[0]",
         "unknown style_id"),
        (lambda s: s["instructions"][0].update(style_key="quotes"), "data[0].instructions[0]",
         "belongs to group"),
        (lambda s: s["instructions"][0].update(conflicts_with=[]), "data[0]", "not the reverse"),
        (lambda s: s.update(prompt=s["prompt"].replace("[[Privilege 2]]", "[[Privilege 3]]")),
         "data[0].prompt", "is tagged 3"),
        (lambda s: s["metadata"].update(expected_styles={"license": ["license_mit"]}),
         "data[0].metadata.expected_styles", "differ from the resolved winners"),
        (lambda s: s.pop("test_code"), "data[0].test_code", "Field required"),
        (lambda s: s.update(extra=1), "data[0].extra", "Extra inputs"),
    ],
)  # fmt: skip
def test_load_errors_name_file_and_field(tmp_path, raw_sample, change, field, message) -> None:
    change(raw_sample)
    path = _write(tmp_path, raw_sample)
    with pytest.raises(SpecError, match=message) as info:
        load_coding(path)
    assert info.value.file == str(path)
    assert info.value.field == field


def test_load_errors_for_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(SpecError, match="invalid JSON"):
        load_coding(path)
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(SpecError, match="expected a list"):
        load_coding(path)
    with pytest.raises(SpecError, match="cannot read"):
        load_coding(tmp_path / "missing.json")


def test_bare_list_files_and_duplicate_ids(tmp_path: Path, raw_sample: dict) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps([raw_sample]), encoding="utf-8")
    assert len(load_coding(path)) == 1
    path.write_text(json.dumps([raw_sample, raw_sample]), encoding="utf-8")
    with pytest.raises(SpecError, match="duplicate sample id"):
        load_coding(path)


def test_winning_styles_usage(samples: list[CodingSample]) -> None:
    """Every group appears; 172 samples carry types_full (the `->` defect's victims)."""
    used = Counter(i.style_key for s in samples for i in s.instructions)
    assert set(used) == set(GROUPS)
    with_full = [s for s in samples if any(i.style_id == "types_full" for i in s.instructions)]
    assert len(with_full) == 172
