"""What a mutation run prints: per module the counts, the survivors and the equivalents; a table.

The score is ``(killed + timeout) / (mutants − equivalent)``: a mutant whose tests hang
was caught (the tests did not pass), an equivalent one cannot be caught by any test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scripts.mutation._mutants import Mutant


@dataclass(frozen=True)
class Score:
    """One module's counts."""

    module: str
    mutants: int
    equivalent: int
    killed: int
    survived: int
    timeout: int
    errors: int

    @property
    def score(self) -> float | None:
        """Caught over catchable, in percent; ``None`` when every mutant is equivalent."""
        catchable = self.mutants - self.equivalent - self.errors
        if catchable <= 0:
            return None
        return 100.0 * (self.killed + self.timeout) / catchable


def score(module: str, mutants: Sequence[Mutant]) -> Score:
    """Count ``mutants`` (all of one module) by outcome."""

    def count(outcome: str) -> int:
        return sum(m.outcome == outcome for m in mutants)

    return Score(
        module=module,
        mutants=len(mutants),
        equivalent=count("equivalent"),
        killed=count("killed"),
        survived=count("survived"),
        timeout=count("timeout"),
        errors=count("error"),
    )


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def _mutant_lines(mutant: Mutant) -> list[str]:
    after = mutant.after if mutant.after else "(line removed)"
    return [
        f"  {mutant.module}:{mutant.line}  {mutant.operator}",
        f"      - {mutant.before}",
        f"      + {after}",
    ]


def module_section(result: Score, mutants: Sequence[Mutant]) -> list[str]:
    """The lines printed after a module's run: counts, survivors, timeouts, equivalents."""
    lines = [
        f"{result.module}: {result.mutants} mutants, {result.killed} killed, "
        f"{result.survived} survived, {result.timeout} timeout, "
        f"{result.equivalent} equivalent, score {_pct(result.score)}"
    ]
    for title, outcome in (
        ("survived", "survived"),
        ("timed out (counted as killed)", "timeout"),
        ("errors (left out of the score)", "error"),
    ):
        chosen = [m for m in mutants if m.outcome == outcome]
        if chosen:
            lines.append(f" {title}:")
            for mutant in chosen:
                lines.extend(_mutant_lines(mutant))
                if mutant.note:
                    lines.append(f"      ! {mutant.note}")
    equivalent = [m for m in mutants if m.outcome == "equivalent"]
    if equivalent:
        lines.append(" equivalent (left out of the score):")
        for mutant in equivalent:
            lines.extend(_mutant_lines(mutant))
            lines.append(f"      = {mutant.note}")
    return lines


def table(results: Sequence[Score]) -> list[str]:
    """The summary table (Markdown) over every module run."""
    lines = [
        "| module | mutants | equivalent | killed | survived | timeout | score |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.module} | {r.mutants} | {r.equivalent} | {r.killed} | {r.survived} "
            f"| {r.timeout} | {_pct(r.score)} |"
        )
    if len(results) > 1:
        total = Score(
            module="all",
            mutants=sum(r.mutants for r in results),
            equivalent=sum(r.equivalent for r in results),
            killed=sum(r.killed for r in results),
            survived=sum(r.survived for r in results),
            timeout=sum(r.timeout for r in results),
            errors=sum(r.errors for r in results),
        )
        lines.append(
            f"| **all** | {total.mutants} | {total.equivalent} | {total.killed} "
            f"| {total.survived} | {total.timeout} | {_pct(total.score)} |"
        )
    return lines
