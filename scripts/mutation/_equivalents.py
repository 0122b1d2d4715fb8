"""Equivalent mutants: listed with a reason, left out of the score and named in the output.

A mutant is equivalent when no caller can tell it from the original (``x > 0`` →
``x >= 0`` on a value that is never 0; a number in a message nobody parses). Two ways
to say so:

- an entry in ``scripts/mutation/equivalents.toml``::

      [[equivalent]]
      module = "adhere/judging/verifiers/_length.py"
      line = "if limit <= 0:"          # the source line as written (stripped)
      mutant = "if limit <= 1:"        # the line as the mutant writes it (stripped)
      reason = "limit is validated >= 1 by the params model, so 0 and 1 never reach here"

  ``mutant`` is ``""`` for a mutant that deletes the line (a decorator removed).
  ``line`` and ``mutant`` are compared with runs of whitespace collapsed, so the
  entry survives edits elsewhere in the file; the run's output prints both for every
  survivor, ready to paste.
- ``# pragma: no mutate`` at the end of a source line: every mutant of that line is
  equivalent; the text after the pragma is the reason.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PRAGMA = re.compile(r"#\s*pragma:\s*no mutate\b[\s:—-]*(.*)$")


def squash(text: str) -> str:
    """``text`` stripped, with every run of whitespace made one space."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Equivalent:
    """One listed equivalent mutant."""

    module: str
    line: str
    mutant: str
    reason: str

    def matches(self, module: str, line: str, mutant: str) -> bool:
        """Whether this entry names the mutant of ``module`` turning ``line`` into ``mutant``."""
        return (
            self.module == module
            and squash(self.line) == squash(line)
            and squash(self.mutant) == squash(mutant)
        )


def load(path: Path) -> list[Equivalent]:
    """The entries of an equivalents file; a missing file has none.

    Raises:
        ValueError: An entry lacks a field, or its module, line or reason is empty
            (naming the file and the entry's number).
    """
    if not path.exists():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = data.get("equivalent", [])
    if not isinstance(entries, list):
        raise ValueError(f"{path}: 'equivalent' must be an array of tables ([[equivalent]])")
    out: list[Equivalent] = []
    for number, entry in enumerate(entries, start=1):
        missing = [
            key
            for key in ("module", "line", "mutant", "reason")
            if not isinstance(entry.get(key), str) or (key != "mutant" and not entry[key].strip())
        ]
        if missing:
            raise ValueError(
                f"{path}: equivalent #{number} needs a non-empty string for {', '.join(missing)}"
            )
        out.append(Equivalent(entry["module"], entry["line"], entry["mutant"], entry["reason"]))
    return out


def pragma_reason(source_line: str) -> str | None:
    """The reason given by a ``# pragma: no mutate`` on ``source_line``, or ``None``."""
    found = PRAGMA.search(source_line)
    if found is None:
        return None
    return found.group(1).strip() or "marked '# pragma: no mutate'"


def reason_for(
    entries: Iterable[Equivalent], module: str, line: str, mutant: str
) -> tuple[str, Equivalent | None] | None:
    """Why the mutant is equivalent (and the entry that says so), or ``None`` if it is not."""
    reason = pragma_reason(line)
    if reason is not None:
        return reason, None
    for entry in entries:
        if entry.matches(module, line, mutant):
            return entry.reason, entry
    return None
