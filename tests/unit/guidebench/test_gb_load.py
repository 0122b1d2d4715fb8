"""Loading the public GuideBench files and task files of our own."""

import json
from collections import Counter
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.suites.guidebench import CATEGORIES, load_directory, load_file

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "guidebench"


@pytest.fixture(scope="module")
def tasks():
    return load_directory(DATA)


def test_category_counts_match_the_paper(tasks) -> None:
    counts = Counter(t.category for t in tasks)
    assert counts == {
        "price": 442,
        "relevance": 192,
        "math": 52,
        "chat": 180,
        "summary": 58,
        "hallucination": 118,
    }
    assert counts == {key: info.published for key, info in CATEGORIES.items()}
    assert len({t.id for t in tasks}) == len(tasks) == 1042


def test_rule_updates_are_found_where_the_paper_says(tasks) -> None:
    updated = Counter(t.category for t in tasks if t.rule_update)
    assert updated == {"math": 30, "price": 58}


def test_gold_labels_are_canonical(tasks) -> None:
    by_category: dict[str, set[str]] = {}
    for task in tasks:
        by_category.setdefault(task.category, set()).add(task.gold)
    assert by_category["price"] == {"0", "1"}
    assert by_category["relevance"] == {"0", "1", "2"}
    assert by_category["chat"] == {"A", "B", "C"}
    assert by_category["hallucination"] == {"A", "B", "C", "D"}
    assert "497.5" in by_category["math"] and "170" in by_category["math"]
    chat = next(t for t in tasks if t.category == "chat")
    assert [letter for letter, _ in chat.options] == ["A", "B", "C", "D"]
    assert chat.options[0][1].startswith("遵循规定")
    assert tasks[0].id == "price-000" and tasks[0].info.title == "price matching"


def _write(path: Path, records) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


GOOD = {
    "Instruction": "判定相关性",
    "Guidelines": [{"type": "强相关", "rule_id": "rule_1", "rule_text": "……"}],
    "Context": "【query】……【doc】……",
    "Groundtruth": {"ReferenceAnswer": "2(强相关)", "ReferenceAnalysis": "……"},
}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"Context": ""}, "Context", "non-empty text"),
        ({"Guidelines": []}, "Guidelines", "non-empty list"),
        ({"Guidelines": [{"type": "x", "rule_id": 3, "rule_text": "y"}]},
         "Guidelines[0].rule_id", "text"),
        ({"Groundtruth": {"ReferenceAnalysis": "…"}}, "Groundtruth.ReferenceAnswer", "missing"),
        ({"Groundtruth": {"ReferenceAnswer": "3（强相关）"}},
         "Groundtruth.ReferenceAnswer", "relevance"),
        ({"Extra": 1}, None, "unknown field"),
    ],
)  # fmt: skip
def test_errors_name_file_index_and_field(tmp_path: Path, change, field, message) -> None:
    path = _write(tmp_path / "relevance_tasks.json", [GOOD, {**GOOD, **change}])
    with pytest.raises(SpecError, match=message) as err:
        load_file(path)
    assert err.value.file == f"{path}[1]"
    assert err.value.field == field


def test_option_tasks_need_their_options(tmp_path: Path) -> None:
    record = {
        **GOOD,
        "MultipleOptions": "A. 是\nB. 否",
        "Groundtruth": {"OptimalOption": "C", "AnswerAnalysis": ""},
    }
    path = _write(tmp_path / "chat_tasks.json", [record])
    with pytest.raises(SpecError, match="not one of the options") as err:
        load_file(path)
    assert err.value.field == "Groundtruth.OptimalOption"
    record["MultipleOptions"] = "是或否"
    with pytest.raises(SpecError, match="before the first option"):
        load_file(_write(path, [record]))


def test_category_comes_from_the_file_name(tmp_path: Path) -> None:
    tasks = load_file(_write(tmp_path / "relevance.json", [GOOD]))
    assert tasks[0].category == "relevance" and tasks[0].gold == "2"
    with pytest.raises(SpecError, match="cannot tell the category"):
        load_file(_write(tmp_path / "mine.json", [GOOD]))
    with pytest.raises(SpecError, match="expected a JSON list"):
        load_file(_write(tmp_path / "relevance_tasks.json", {"tasks": []}))


def test_a_directory_needs_all_six_files(tmp_path: Path) -> None:
    _write(tmp_path / "relevance_tasks.json", [GOOD])
    with pytest.raises(SpecError, match="missing price_tasks.json"):
        load_directory(tmp_path)
