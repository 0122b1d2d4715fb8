"""Compliance metrics of one rollout: ISR and CSR, verdict counts, judge agreement.

ISR and CSR by model and scaffold, by instruction source, by check type and by judge.

The numbers are the report's (``adhere report``): the same :func:`adhere.metrics.rates`
over the same scored trials (conflict side checks left out), so a dashboard and a
report of the same store agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace

from adhere.core import Instance
from adhere.exporter._families import OTHER, Families
from adhere.exporter._read import RolloutData
from adhere.judging import ItemKey, category_trials, judge_trials, panel_agreement, verdict_labels
from adhere.metrics import ScoredTrial, group_rates

__all__ = ["add_compliance"]

_GROUP = ("model", "scaffold")
_RESULTS = ("pass", "fail", "n/a", "error")


def _relabel(
    trial: ScoredTrial, models: Mapping[str, str], scaffolds: Mapping[str, str]
) -> ScoredTrial:
    model, scaffold = str(trial.keys["model"]), str(trial.keys["scaffold"])
    keys = {
        **trial.keys,
        "model": models.get(model, OTHER),
        "scaffold": scaffolds.get(scaffold, OTHER),
    }
    return replace(trial, keys=keys)


def _labelled(
    instances: Mapping[str, Instance], label: Callable[[Instance], Mapping[str, str]]
) -> dict[str, Mapping[str, str]]:
    return {instance_id: label(instance) for instance_id, instance in instances.items()}


def add_compliance(
    families: Families,
    data: RolloutData,
    base: dict[str, str],
    models: Mapping[str, str],
    scaffolds: Mapping[str, str],
    judges: Mapping[str, str],
) -> None:
    """Add the compliance families of one rollout.

    Args:
        families: Where the samples go.
        data: The rollout.
        base: The rollout's own labels (rollout, benchmark, suite).
        models: Model name → label (see :func:`~adhere.exporter._families.bounded`).
        scaffolds: Scaffold name → label.
        judges: Judge name → label.
    """
    trials = [_relabel(t.scored, models, scaffolds) for t in data.trials]
    for (model, scaffold), r in group_rates(trials, _GROUP).items():
        labels = {**base, "model": str(model), "scaffold": str(scaffold)}
        families.set(
            "adhere_isr",
            "Instance success rate: share of scored trials whose applicable checks all passed.",
            labels,
            r.isr,
        )
        families.set(
            "adhere_csr",
            "Check success rate: mean share of applicable checks passed per scored trial.",
            labels,
            r.csr,
        )
        families.set(
            "adhere_scored_trials",
            "Trials with at least one applicable check (the ISR/CSR denominator).",
            labels,
            r.scored,
        )
        families.set(
            "adhere_trial_errors",
            "Finished trials whose run failed (their checks count as error).",
            labels,
            r.trial_errors,
        )
        families.set(
            "adhere_trial_upstream_faults",
            "Finished trials the model service failed (not scored, not the agent's doing).",
            labels,
            r.upstream_faults,
        )
        families.set(
            "adhere_incomplete_trials",
            "Trials left out of ISR/CSR because a check is undecided (no verdict, or errored).",
            labels,
            r.incomplete,
        )
        families.set(
            "adhere_undecided_checks",
            "Checks of trials that ran with no verdict (no verifier, no judge panel, or "
            "scoring not finished).",
            labels,
            r.undecided,
        )
        families.set(
            "adhere_errored_checks",
            "Checks of trials that ran whose verifier or judges failed (error verdicts).",
            labels,
            r.errored,
        )
    verdicts: Counter[tuple[str, str, str]] = Counter()
    for trial in trials:
        for verdict in trial.verdicts:
            model, scaffold = str(trial.keys["model"]), str(trial.keys["scaffold"])
            verdicts[(model, scaffold, verdict.result)] += 1
    for model, scaffold in sorted({k[:2] for k in verdicts}):
        for result in _RESULTS:
            labels = {**base, "model": model, "scaffold": scaffold, "result": result}
            families.set(
                "adhere_verdicts",
                "Verdicts of the scored trials by result.",
                labels,
                verdicts[(model, scaffold, result)],
            )
    sources = _labelled(data.instances, lambda i: {c.id: c.source.value for c in i.checks})
    kinds = _labelled(data.instances, lambda i: {c.id: c.kind.value for c in i.checks})
    for split_key, name, label_of, what in (
        ("source", "by_source", sources, "instruction source"),
        ("check_type", "by_check_type", kinds, "check type"),
    ):
        split: list[ScoredTrial] = []
        for trial in trials:
            label_map = label_of.get(str(trial.keys["instance"]), {})
            split += category_trials(trial, label_map, key=split_key)
        for (model, scaffold, value), r in group_rates(split, [*_GROUP, split_key]).items():
            labels = {
                **base,
                "model": str(model),
                "scaffold": str(scaffold),
                split_key: str(value),
            }
            families.set(f"adhere_isr_{name}", f"ISR over the checks of one {what}.", labels, r.isr)
            families.set(f"adhere_csr_{name}", f"CSR over the checks of one {what}.", labels, r.csr)
    _add_judges(families, data, trials, base, judges)


def _add_judges(
    families: Families,
    data: RolloutData,
    trials: list[ScoredTrial],
    base: dict[str, str],
    judges: Mapping[str, str],
) -> None:
    per_judge: list[ScoredTrial] = []
    labels_of: dict[str, dict[ItemKey, str]] = {}
    results: Counter[tuple[str, str]] = Counter()
    for facts, trial in zip(data.trials, trials, strict=True):
        if not facts.judged:
            continue
        by_judge = {
            judges.get(name, OTHER): found
            for name, found in facts.judged.items()
            if judges.get(name, OTHER) != OTHER
        }
        judged_ids = {v.check_id for found in facts.judged.values() for v in found}
        fixed = [v for v in trial.verdicts if v.check_id not in judged_ids]
        keys = {"model": trial.keys["model"], "scaffold": trial.keys["scaffold"]}
        per_judge += judge_trials(keys, trial.status, by_judge, fixed, trial.expected)
        trial_id = facts.attempt.result.trial_id
        for name, found in by_judge.items():
            labels_of.setdefault(name, {}).update(verdict_labels(trial_id, found))
            for verdict in found:
                results[(name, verdict.result)] += 1
    for (model, scaffold, judge), r in group_rates(per_judge, [*_GROUP, "judge"]).items():
        labels = {**base, "model": str(model), "scaffold": str(scaffold), "judge": str(judge)}
        families.set(
            "adhere_isr_by_judge",
            "ISR scored on one judge's verdicts (plus the deterministic ones).",
            labels,
            r.isr,
        )
        families.set(
            "adhere_csr_by_judge",
            "CSR scored on one judge's verdicts (plus the deterministic ones).",
            labels,
            r.csr,
        )
        families.set(
            "adhere_incomplete_trials_by_judge",
            "Trials left out of one judge's ISR/CSR: a check that judge did not decide.",
            labels,
            r.incomplete,
        )
    for judge in sorted({name for name, _ in results}):
        for result in _RESULTS:
            labels = {**base, "judge": judge, "result": result}
            families.set(
                "adhere_judge_verdicts",
                "Verdicts each judge gave, by result (error: no usable answer).",
                labels,
                results[(judge, result)],
            )
    if len(labels_of) < 2:
        return
    agreement = panel_agreement(labels_of)
    for pair in agreement.pairs:
        labels = {**base, "judge_a": pair.judge_a, "judge_b": pair.judge_b}
        families.set(
            "adhere_judge_agreement_kappa",
            "Cohen's kappa of two judges over the items both decided.",
            labels,
            pair.kappa,
        )
        families.set(
            "adhere_judge_agreement_exact_match",
            "Share of items two judges labelled alike.",
            labels,
            pair.exact_match,
        )
        families.set(
            "adhere_judge_agreement_items", "Items two judges both decided.", labels, pair.items
        )
    families.set(
        "adhere_judge_fleiss_kappa",
        "Fleiss' kappa of the whole panel over the items every judge decided.",
        base,
        agreement.fleiss_kappa,
    )
