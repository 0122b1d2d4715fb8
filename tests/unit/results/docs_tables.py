"""Reading docs/results.md's column tables (what the tests compare the code with)."""

from __future__ import annotations

import re

from tests.helpers import ROOT

DOC = ROOT / "docs" / "results.md"
_ROW = re.compile(r"^\| `([a-z_]+)` \| (string|integer|float|boolean) \| (yes|no) \| (.+) \|$")


def documented_columns() -> dict[str, list[tuple[str, str, bool]]]:
    """Table name → its documented columns (name, type, nullable), in order."""
    tables: dict[str, list[tuple[str, str, bool]]] = {}
    current: str | None = None
    for line in DOC.read_text().splitlines():
        if line.startswith("## "):
            current = None
        elif line.startswith("### "):
            current = line[4:].strip()
            tables[current] = []
        elif current is not None and line.startswith("| `"):
            match = _ROW.match(line)
            assert match, f"docs/results.md: a column row of {current} is malformed: {line}"
            name, kind, nullable, meaning = match.groups()
            assert meaning.strip(), f"docs/results.md: {current}.{name} has no meaning"
            tables[current].append((name, kind, nullable == "yes"))
    return tables
