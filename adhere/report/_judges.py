"""The report's one rule for combining judges, and the cells it produces.

**The rule** (the OctoBench paper's avg@k over judges, §3.2 and Table 2): every judge
scores each trial on its own verdicts, together with the verdicts no judge gave
(deterministic verifiers); ISR and CSR are computed per judge exactly as
:mod:`adhere.metrics` defines them (undecided checks never pass; a judge's incomplete
trials are left out of that judge's rates); a rate across judges is the **mean of the
judges' rates**, shown ``± the standard deviation across judges`` — the population
standard deviation (``statistics.pstdev``), which is what the paper's tables report
(its Table 2: 27.21, 31.26, 25.86 → 28.11 ± 2.3). A group some judge could not rate
(only incomplete trials for it) is averaged over the judges that could, and its cell
says how many (``2/3 judges``). Without judge verdicts the stored verdicts are the
only scoring set and a cell is a plain rate.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from adhere.core import Verdict
from adhere.judging import judge_trials
from adhere.metrics import Rates, ScoredTrial, group_rates
from adhere.report._cells import rate_cell

__all__ = [
    "MAJORITY",
    "Across",
    "Aggregation",
    "across_judges",
    "combined_by",
    "judge_names",
    "per_judge_trials",
    "rule_note",
    "scoring_sets",
]

Aggregation = Literal["mean", "majority"]
"""How a report combines judges: the rollout's JudgePanel ``aggregation``."""

JUDGE = "judge"
"""The key :func:`adhere.judging.judge_trials` names each scoring set under."""

STORED = "stored verdicts"
"""The name of the one scoring set when no judge gave verdicts."""

MAJORITY = "majority vote"
"""The name of the one scoring set under the ``majority`` rule (the stored verdicts,
whose judge-decided checks hold the panel's vote)."""


@dataclass(frozen=True)
class Across:
    """One group's rates per judge and their mean ± std across judges."""

    judges: dict[str, Rates]
    of: int
    """How many judges the report has (a cell notes when fewer could rate it)."""

    def values(self, metric: str) -> list[float]:
        """The judges' ``isr`` or ``csr`` that exist."""
        found = (getattr(r, metric) for r in self.judges.values())
        return [v for v in found if v is not None]

    def mean(self, metric: str) -> float | None:
        """Mean across the judges that could rate the group (``None``: none could)."""
        values = self.values(metric)
        return statistics.fmean(values) if values else None

    def std(self, metric: str) -> float | None:
        """Population standard deviation across judges (``None`` below two judges)."""
        values = self.values(metric)
        return statistics.pstdev(values) if len(values) > 1 else None

    def cell(self, metric: str) -> str:
        """``mean% ± std``, a plain rate with one judge, ``incomplete`` or ``–``."""
        mean = self.mean(metric)
        if mean is None:
            return "incomplete" if any(r.incomplete for r in self.judges.values()) else "–"
        std = self.std(metric)
        text = f"{mean * 100:.1f}%" + ("" if std is None else f" ± {std * 100:.1f}")
        rated = len(self.values(metric))
        return text if rated >= self.of else f"{text} ({rated}/{self.of} judges)"

    def judge_cell(self, judge: str, metric: str) -> str:
        """One judge's own rate (as :func:`rate_cell` shows it)."""
        rates = self.judges.get(judge)
        return "–" if rates is None else rate_cell(rates, getattr(rates, metric))


def per_judge_trials(
    trials: Sequence[ScoredTrial], judged: Mapping[str, Mapping[str, Sequence[Verdict]]]
) -> list[ScoredTrial]:
    """Every scoring set of every trial, each carrying the ``judge`` key.

    A trial judges gave verdicts on yields one trial per judge (its verdicts plus the
    deterministic ones); without judge verdicts anywhere, each trial is its own one
    scoring set (:data:`STORED`). Trials that were not judged (failed ones, upstream
    faults) are repeated under every judge so that each judge's rates rest on the
    same trials.
    """
    judges = judge_names(judged)
    if not judges:
        return [replace(t, keys={**t.keys, JUDGE: STORED}) for t in trials]
    out: list[ScoredTrial] = []
    for trial in trials:
        by_judge = judged.get(str(trial.keys.get("trial")))
        if not by_judge:
            out += [replace(trial, keys={**trial.keys, JUDGE: j}) for j in judges]
            continue
        ids = {v.check_id for verdicts in by_judge.values() for v in verdicts}
        fixed = [v for v in trial.verdicts if v.check_id not in ids]
        out += judge_trials(trial.keys, trial.status, by_judge, fixed, trial.expected)
    return out


def judge_names(judged: Mapping[str, Mapping[str, Sequence[Verdict]]]) -> list[str]:
    """The judges that gave verdicts, sorted."""
    return sorted({name for by_judge in judged.values() for name in by_judge})


def across_judges(
    per_judge: Sequence[ScoredTrial], by: Sequence[str]
) -> dict[tuple[Any, ...], Across]:
    """Per group of ``by`` keys: each judge's rates and the count of judges."""
    judges = {str(t.keys[JUDGE]) for t in per_judge}
    groups: dict[tuple[Any, ...], dict[str, Rates]] = {}
    for key, rates in group_rates(per_judge, [*by, JUDGE]).items():
        groups.setdefault(tuple(key[:-1]), {})[str(key[-1])] = rates
    return {key: Across(rates, len(judges)) for key, rates in groups.items()}


def scoring_sets(
    trials: Sequence[ScoredTrial],
    judged: Mapping[str, Mapping[str, Sequence[Verdict]]],
    aggregation: Aggregation,
) -> list[ScoredTrial]:
    """What every table of a report scores: the rule's scoring sets, each under ``judge``.

    ``mean``: every judge's own scoring of every trial (:func:`per_judge_trials`);
    ``majority``: the stored verdicts, one set (:data:`MAJORITY`); without judge
    verdicts the stored verdicts (:data:`STORED`) whatever the rule.
    """
    if judge_names(judged) and aggregation == "majority":
        return [replace(t, keys={**t.keys, JUDGE: MAJORITY}) for t in trials]
    return per_judge_trials(trials, judged)


def combined_by(sets: Sequence[ScoredTrial]) -> str:
    """How the sets' cells combine judges, for a table's title."""
    names = {str(t.keys.get(JUDGE)) for t in sets}
    if names == {MAJORITY}:
        return "by the judges' majority vote"
    if names <= {STORED}:
        return "plain rates of the stored verdicts"
    return "mean ± std across judges"


def rule_note(
    judges: Sequence[str],
    isr: str = "ISR",
    csr: str = "CSR",
    aggregation: Aggregation = "mean",
) -> str:
    """The sentence at the top of a report that states how judges are combined."""
    if not judges:
        return (
            f"Judges: none — every check was decided by a deterministic verifier (or is "
            f"undecided); {isr} and {csr} are plain rates of the stored verdicts in every table."
        )
    named = (
        f"Judges ({len(judges)}: {', '.join(judges)}) — rule: {aggregation} (the JudgePanel's "
        "aggregation)"
    )
    if aggregation == "majority":
        return (
            f"{named}: every table counts a judge-decided check by the panel's majority vote "
            f"(ties go to fail; a check every judge errored on is undecided); {isr} and "
            f"{csr} are plain rates of those verdicts with the deterministic verifiers', and "
            "Table 4 takes each run's side by the judges' majority (a tie is undecided). "
            "Undecided checks never pass; incomplete trials are left out of the rates. "
            "Only the per-judge columns of Table 2 and the panel tables score each judge "
            "alone."
        )
    return (
        f"{named}: in every table each judge scores each trial on its own verdicts (with "
        f"the deterministic verifiers'), and a rate across judges is the mean of the "
        f"judges' {isr} / {csr} ± the population standard deviation across judges (the "
        "paper's avg@k; Table 4: the mean of the judges' shares); its 95% interval is a "
        "bootstrap over instances of that mean. "
        "Undecided checks never pass; a trial incomplete for a judge is left out of that "
        "judge's rate. Counts (scored, incomplete, undecided, errored …) are per judge, "
        "in the order above, written once when every judge has the same."
    )
