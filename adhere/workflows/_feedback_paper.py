"""Paper Table 5: feedback correction on the partial-failure instances of the base run.

The paper (§4.3.2) takes the partial-failure instances of Claude Code trajectories,
feeds their failed checks back and reports ISR and CSR before ("Original") and after
("Reflection") with the gain Δ, on exactly those instances. Here the subset is
:func:`adhere.metrics.partial_failure_pairs`: every paired trial of a model ×
scaffold × instance at least one of whose base-run trials failed some checks but not
all (`adhere feedback --scaffold claude-code` restricts it to one scaffold, as the
paper does). Trials that passed everything, failed every check or failed to run are
outside it; so are other repeats' trials of instances with no partial failure.
"""

from __future__ import annotations

from collections.abc import Sequence

from adhere.metrics import (
    PairedTrial,
    Table,
    group_deltas,
    partial_failure_pairs,
    pct,
    signed_points,
)

__all__ = ["TABLE5_TITLE", "table5"]

TABLE5_TITLE = "Table 5: feedback on the partial-failure instances of the base run"


def table5(
    pairs: Sequence[PairedTrial], isr: str, csr: str, group: Sequence[str]
) -> tuple[Table, list[str]]:
    """Table 5 over the partial-failure subset of ``pairs``, and notes on what it covers.

    ``group``: the keys of a row (``model``, or ``model`` and ``scaffold``).
    """
    subset = partial_failure_pairs(pairs)
    header = [
        *group,
        "instances",
        "trials",
        "re-run",
        f"{isr} before",
        f"{csr} before",
        f"{isr} after",
        f"{csr} after",
        f"Δ{isr}",
        f"Δ{csr}",
    ]
    rows = []
    for key, d in group_deltas(subset, group).items():
        chosen = [p for p in subset if tuple(p.before.keys.get(k) for k in group) == key]
        instances = {(p.before.keys.get("scaffold"), p.before.keys.get("instance")) for p in chosen}
        rows.append(
            [
                *map(str, key),
                str(len(instances)),
                str(d.pairs),
                str(d.changed),
                pct(d.before.isr),
                pct(d.before.csr),
                pct(d.after.isr),
                pct(d.after.csr),
                signed_points(d.isr),
                signed_points(d.csr),
            ]
        )
    notes = [
        f"{TABLE5_TITLE.split(':')[0]} rests on {len(subset)} of {len(pairs)} paired trials: "
        "those of the instances (per model × scaffold) where a trial of the base run failed "
        "at least one check but not every one; the tables after it cover every trial."
    ]
    if not subset:
        notes.append("No instance of the base run is a partial failure: Table 5 is empty.")
    return Table(title=TABLE5_TITLE, header=header, rows=rows), notes
