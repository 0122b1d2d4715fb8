"""Test modules have unique basenames: pytest imports them by basename (the test
directories are not packages), so a second ``test_x.py`` anywhere stops collection."""

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_module_basenames_are_unique() -> None:
    places: defaultdict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        places[path.name].append(str(path.relative_to(TESTS)))
    assert places, "no test modules found"
    assert {name: where for name, where in places.items() if len(where) > 1} == {}
