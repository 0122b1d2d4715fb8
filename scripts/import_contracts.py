"""An import-linter contract type of adhere's own: no package imports another's private module.

A module is private when a component of its dotted name, below the root package,
starts with one underscore (``adhere.runner._engine``, ``adhere.wire.gemini._server``).
A top-level package (``adhere.runner``) may import its own private modules; any other
package may import only what the owner's public modules export. A private module
directly under the root (``adhere._registry``) belongs to the project, not to a
package: every package may use it. Modules named in ``allowed`` may be imported by
anyone (an escape hatch; none is needed today).

Registered in ``pyproject.toml`` (``contract_types``) and run by ``lint-imports``, which
puts the working directory on ``sys.path``, so this file is found as
``scripts.import_contracts``. It is development tooling, not part of the package.
"""

from __future__ import annotations

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


def owner(module: str, depth: int) -> str:
    """The top-level package a module belongs to (``depth`` 2: ``adhere.runner``)."""
    return ".".join(module.split(".")[:depth])


def private_part(module: str, depth: int) -> bool:
    """Whether a name below the owning package starts with one underscore."""
    return any(
        part.startswith("_") and not part.startswith("__") for part in module.split(".")[depth:]
    )


def violations(
    imports: list[tuple[str, str, list[int]]], *, allowed: set[str], depth: int = 2
) -> list[tuple[str, str, list[int]]]:
    """The (importer, imported, lines) whose imported module is another package's private one."""
    return sorted(
        (importer, imported, lines)
        for importer, imported, lines in imports
        if imported not in allowed
        and private_part(imported, depth)
        and owner(importer, depth) != owner(imported, depth)
    )


class PrivateModulesContract(Contract):
    """No top-level package imports another top-level package's private modules.

    Configuration options:
        - root: the root package (``adhere``).
        - allowed: private modules anyone may import (optional).
    """

    type_name = "private_modules"

    root = fields.StringField()
    allowed = fields.ListField(subfield=fields.StringField(), required=False, default=[])

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        """Find every direct import of another package's private module."""
        root = str(self.root)
        depth = root.count(".") + 2
        found = []
        for importer in sorted(graph.modules):
            if not importer.startswith(root + "."):
                continue
            for imported in graph.find_modules_directly_imported_by(importer):
                if not imported.startswith(root + "."):
                    continue
                details = graph.get_import_details(importer=importer, imported=imported)
                found.append((importer, imported, sorted({d["line_number"] for d in details})))
        allowed = {str(name) for name in self.allowed}  # type: ignore[attr-defined]
        broken = violations(found, allowed=allowed, depth=depth)
        return ContractCheck(kept=not broken, metadata={"broken": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Print each forbidden import with its line numbers."""
        for importer, imported, lines in check.metadata["broken"]:
            where = ", ".join(f"l.{n}" for n in lines)
            output.print_error(f"{importer} -> {imported} ({where})", bold=False)
        output.new_line()
        output.print(
            "Import the name from the owning package's __init__ (add it to its __all__), "
            "or move the code to the package that owns it."
        )
