"""The one registry: registration, lazy built-ins, entry points, unknown names, children."""

import subprocess
import sys
import types
from pathlib import Path

import pytest

from adhere._registry import Registry
from adhere.errors import SpecError


def things(**options: object) -> Registry[object]:
    return Registry("things", "thing", field="spec.thing", **options)


def test_registration_by_call_and_by_decorator() -> None:
    registry = things(entry_points=False)
    registry.register("a", 1)

    @registry.decorator("b")
    class B:
        pass

    assert registry.get("a") == 1
    assert registry.get("b") is B
    assert "a" in registry and "c" not in registry
    assert registry.names() == ["a", "b"]
    assert registry.registered() == {"a": 1, "b": B}


def test_a_name_is_taken_once_unless_replaced() -> None:
    registry = things(entry_points=False)
    registry.register("a", 1)
    with pytest.raises(ValueError, match="thing 'a' is already registered"):
        registry.register("a", 2)
    registry.register("a", 2, replace=True)
    assert registry.get("a") == 2
    registry.decorator("a")(3)  # decorators replace, as a module imported twice does
    assert registry.get("a") == 3
    registry.unregister("a")
    assert registry.find("a") is None


def test_unknown_name_is_a_spec_error_listing_the_known_ones() -> None:
    registry = things(entry_points=False, builtin={"zeta": "json"})
    registry.register("alpha", 1)
    with pytest.raises(SpecError) as err:
        registry.get("nope")
    assert str(err.value) == "spec.thing: unknown thing 'nope'; known things: alpha, zeta"
    assert err.value.field == "spec.thing"
    assert registry.find("nope") is None


def test_builtins_are_listed_without_importing_and_imported_on_first_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry: Registry[str] = Registry(
        "lazythings", "lazy thing", entry_points=False, builtin={"lazy": "adhere_test_builtin"}
    )
    holder = types.ModuleType("adhere_test_holder")
    holder.REGISTRY = registry
    monkeypatch.setitem(sys.modules, "adhere_test_holder", holder)
    (tmp_path / "adhere_test_builtin.py").write_text(
        "from adhere_test_holder import REGISTRY\nREGISTRY.decorator('lazy')('loaded')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert registry.names() == ["lazy"]
        assert "lazy" not in registry
        assert "adhere_test_builtin" not in sys.modules
        assert registry.get("lazy") == "loaded"
        assert "adhere_test_builtin" in sys.modules
    finally:
        sys.modules.pop("adhere_test_builtin", None)


def test_entry_points_are_found_by_group_and_adapted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "adhere_test_things.py").write_text("ANSWER = 42\nNOT_ONE = None\n")
    dist = tmp_path / "adhere_test_things-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: adhere-test-things\nVersion: 1\n")
    (dist / "entry_points.txt").write_text(
        "[adhere.testthings]\n"
        "answer = adhere_test_things:ANSWER\n"
        "not-one = adhere_test_things:NOT_ONE\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry: Registry[str] = Registry(
        "testthings", "test thing", adapt=lambda name, v: None if v is None else f"{name}={v}"
    )
    try:
        assert registry.names() == ["answer", "not-one"]
        assert "adhere_test_things" not in sys.modules  # listing names imports nothing
        assert registry.get("answer") == "answer=42"
        assert registry.find("not-one") is None  # adapt said it is not an entry
        with pytest.raises(SpecError, match="unknown test thing 'not-one'"):
            registry.get("not-one")
    finally:
        sys.modules.pop("adhere_test_things", None)


def test_a_child_keeps_its_additions_and_falls_back_to_its_parent() -> None:
    parent = things(entry_points=False)
    parent.register("shared", 1)
    child = parent.child()
    child.register("own", 2)
    with pytest.raises(ValueError, match="already registered"):
        child.register("shared", 3)
    child.register("shared", 3, replace=True)
    assert (child.get("shared"), child.get("own")) == (3, 2)
    assert parent.get("shared") == 1 and parent.find("own") is None
    assert child.names() == ["own", "shared"]


def test_the_registry_module_imports_only_the_standard_library_and_errors() -> None:
    code = (
        "import sys\nimport adhere._registry\n"
        "print(sorted(m for m in sys.modules if m.startswith('adhere')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['adhere', 'adhere._registry', 'adhere.errors']"
