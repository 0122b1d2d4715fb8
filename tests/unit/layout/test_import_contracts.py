"""The private-module contract: which imports it reports, and that the package keeps it."""

import tomllib
from pathlib import Path

import grimp

from scripts.import_contracts import owner, private_part, violations

ROOT = Path(__file__).resolve().parents[3]


def test_owner_and_private_part() -> None:
    assert owner("adhere.wire.gemini._server", 2) == "adhere.wire"
    assert private_part("adhere.wire.gemini._server", 2)
    assert private_part("adhere._registry", 1)
    assert not private_part("adhere.wire.gemini", 2)
    assert not private_part("adhere.suites.pacific.__init__", 2)


def test_violations_only_across_packages() -> None:
    imports = [
        ("adhere.runner._run", "adhere.runner._engine", [3]),  # own private module: fine
        ("adhere.report._paper", "adhere.runner._plan", [7]),  # another's private module
        ("adhere.cli._app", "adhere.runner", [9]),  # another's public package: fine
        ("adhere.testing._app", "adhere.wire.gemini._server", [2]),  # private, nested
        ("adhere.spec._load", "adhere._registry", [4]),  # the project's own, below all
        ("adhere.spec._load", "adhere.suites._registry", [6]),  # allowed by name
        ("adhere.wire.gemini._server", "adhere.wire._sse", [5]),  # same top-level package
    ]
    assert violations(imports, allowed={"adhere.suites._registry"}) == [
        ("adhere.report._paper", "adhere.runner._plan", [7]),
        ("adhere.testing._app", "adhere.wire.gemini._server", [2]),
    ]
    assert violations(imports, allowed=set()) == [
        ("adhere.report._paper", "adhere.runner._plan", [7]),
        ("adhere.spec._load", "adhere.suites._registry", [6]),
        ("adhere.testing._app", "adhere.wire.gemini._server", [2]),
    ]


def test_adhere_has_no_cross_package_private_imports() -> None:
    graph = grimp.build_graph("adhere")
    found = [
        (importer, imported, [])
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported.startswith("adhere.")
    ]
    assert len(found) > 500  # the graph is the real one
    assert violations(found, allowed=set()) == []


def test_contracts_are_configured() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    kinds = {c["type"] for c in config["contracts"]}
    assert {"layers", "independence", "private_modules", "forbidden"} <= kinds
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    packages = {p.name for p in (ROOT / "adhere").iterdir() if (p / "__init__.py").is_file()}
    named = {m.strip().split(".")[1] for layer in layers for m in layer.split("|")}
    assert packages <= named  # every package sits in a layer
