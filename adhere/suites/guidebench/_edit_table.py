"""The rule-edit table (Appendix B.6): does the answer follow an edited rule? Pure.

Per model, over the pairs whose original and edited task both ran and were decided: accuracy on the
originals, accuracy on the edited tasks (the answer followed the edit), how many edited
tasks were answered with the answer from before the edit (the edit was ignored), and
how many pairs were right on both sides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from adhere.metrics import Table, pct

if TYPE_CHECKING:
    from adhere.suites.guidebench._metrics import Answer

__all__ = ["edit_table"]


def edit_table(
    group: list[str], answers: Mapping[tuple[str, ...], Sequence[Answer]]
) -> Table | None:
    """The table, or ``None`` when no rule-edit pair ran."""
    rows = []
    for key, mine in answers.items():
        by_instance = {a.instance: a for a in mine}
        pairs = [
            (by_instance[a.edit_pair], a)
            for a in mine
            if a.edit == "edited" and a.edit_pair is not None and a.edit_pair in by_instance
        ]
        pairs = [(o, e) for o, e in pairs if "undecided" not in (o.outcome, e.outcome)]
        if not pairs:
            continue
        n = len(pairs)
        original = sum(1 for o, _ in pairs if o.outcome == "correct")
        edited = sum(1 for _, e in pairs if e.outcome == "correct")
        kept = sum(1 for _, e in pairs if e.kept_old)
        both = sum(1 for o, e in pairs if o.outcome == e.outcome == "correct")
        rows.append([*key, str(n), pct(original / n), pct(edited / n), str(kept), str(both)])
    if not rows:
        return None
    return Table(
        title="GuideBench rule edits (Appendix B.6): one rule edited so the answer changes",
        header=[*group, "pairs", "accuracy original", "accuracy edited (followed the edit)",
                "edited answered with the old answer", "both right"],
        rows=rows,
    )  # fmt: skip
