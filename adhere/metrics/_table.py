"""A titled table of strings, and how a share is written: what suites and reports exchange."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Table", "pct"]


@dataclass(frozen=True)
class Table:
    """A titled table of strings."""

    title: str
    header: list[str]
    rows: list[list[str]]


def pct(value: float | None) -> str:
    """A share as a percentage, or an en dash when undefined."""
    return "–" if value is None else f"{value * 100:.1f}%"
