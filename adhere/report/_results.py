"""Reading a rollout's finished trials back for metrics and reports."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from adhere.artifacts import INSTANCES, SPECS, RolloutStore
from adhere.core import Verdict
from adhere.errors import AdhereError, SpecError
from adhere.judging import (
    HumanLabel,
    ItemKey,
    human_agreement,
    load_human_labels,
    panel_agreement,
    panel_scores,
    rank_stability,
    resolve_human_labels,
    verdict_labels,
)
from adhere.metrics import Price, ScoredTrial, Table, pct
from adhere.report._breakdowns import repeat_tables, split_tables
from adhere.report._collect import Collected, collect, scored_trial
from adhere.report._conflict import conflict_tables
from adhere.report._document import Report, build_report
from adhere.report._judges import (
    Across,
    Aggregation,
    judge_names,
    per_judge_trials,
    rule_note,
    scoring_sets,
)
from adhere.report._pacific import add_instruction_accuracy
from adhere.report._paper import paper_tables
from adhere.report._spend import spend_tables
from adhere.report._turns import interaction_turns, turns_figure
from adhere.scaffolds import get_scaffold, runs_in_sandbox
from adhere.spec import JudgePanel, Rollout, parse_resource
from adhere.suites import get_suite

__all__ = [
    "Collected",
    "collect",
    "read_judged",
    "report_for",
    "scored_trial",
    "stored_aggregation",
]


def stored_aggregation(store: RolloutStore) -> Aggregation:
    """The ``aggregation`` of the JudgePanel in the rollout's spec snapshot.

    ``mean`` (the JudgePanel's default, the paper's) when the snapshot holds no panel,
    e.g. a rollout scored afterwards with ``adhere score RUN --panel FILE``.
    """
    if not store.has_specs():
        return "mean"
    where = store.where(SPECS)
    for index, document in enumerate(store.read_specs()):
        resource = parse_resource(document, file=where, index=index)
        if isinstance(resource, JudgePanel):
            return resource.spec.aggregation
    return "mean"


SANDBOX_OFF_NOTE = (
    "WARNING: this rollout ran with 'sandbox: off': its agent CLIs ran unconfined, as the "
    "runner's user, able to read and write whatever it could and to reach any network "
    "address; nothing but the models' restraint kept them to their workspaces."
)


def sandbox_note(store: RolloutStore, scaffolds: Iterable[str]) -> str | None:
    """The warning of a rollout whose spec snapshot says ``sandbox: off``, else ``None``.

    Only when it ran an agent CLI (``scaffolds``: the names its trials ran under).
    """
    if not store.has_specs() or not any(_agent_cli(name) for name in set(scaffolds)):
        return None
    where = store.where(SPECS)
    for index, document in enumerate(store.read_specs()):
        resource = parse_resource(document, file=where, index=index)
        if isinstance(resource, Rollout) and resource.spec.sandbox == "off":
            return SANDBOX_OFF_NOTE
    return None


def _agent_cli(name: str) -> bool:
    try:
        return runs_in_sandbox(get_scaffold(name))
    except AdhereError:  # a scaffold this install does not know: say nothing of it
        return False


def report_for(
    store: RolloutStore,
    *,
    human_labels: str | Path | None = None,
    prices: Mapping[str, Price] | None = None,
    aggregation: Aggregation | None = None,
) -> Report:
    """Build the report of a rollout from its store (optionally against human labels).

    ``prices`` is the price table of the spend tables' costs (see :mod:`._spend`).
    ``aggregation``: how every table combines judges (``mean`` or ``majority``);
    ``None``: the rollout's JudgePanel's (:func:`stored_aggregation`).
    """
    collected = collect(store)
    if not collected.instances:
        raise SpecError(
            "the rollout has no instances (instances.jsonl is empty): nothing to report; "
            "a log imported without --benchmark holds trajectories only",
            file=store.where(INSTANCES),
        )
    names = collected.suite.split(", ")
    suite = get_suite(names[0]) if len(names) == 1 else None
    rule = aggregation or stored_aggregation(store)
    judged = read_judged(store, collected)
    sets = scoring_sets(collected.trials, judged, rule)
    report = build_report(
        rollout=collected.rollout,
        suite=collected.suite,
        metric_names=suite.metric_names() if suite else ("ISR", "CSR"),
        trials=collected.trials,
        breakdowns=list(suite.breakdowns()) if suite else [],
        sets=sets,
    )
    unconfined = sandbox_note(store, (str(t.keys.get("scaffold")) for t in collected.trials))
    if unconfined:
        report.notes.insert(0, unconfined)
    versions = version_note(collected)
    if versions:
        report.notes.append(versions)
    if collected.stale:
        report.notes.append(
            f"{collected.stale} stored trial(s) belong to instances the benchmark no longer "
            "holds (run under an earlier config): they are left out of every table."
        )
    judges = judge_names(judged)
    report.rule = rule_note(judges, report.isr_name, report.csr_name, rule)
    report.notes += judge_incomplete_notes(sets, judges, rule, report)
    if suite is not None and suite.name == "octobench":
        report.paper, figure = octobench_tables(store, collected, judged, sets, report)
        if figure is not None:
            report.plots["by_turns.svg"] = figure
    if suite is not None and suite.name == "pacific":
        add_instruction_accuracy(report, collected.trials, collected.instances)
    report.breakdowns += split_tables(sets, collected.instances, report)
    report.breakdowns += repeat_tables(sets, report)
    suite_tables = getattr(suite, "report_tables", None)  # optional hook (e.g. GuideBench)
    if suite_tables is not None:
        paper, extra = suite_tables(collected.trials)
        report.paper += paper
        report.breakdowns += extra
    if collected.conflicts:
        scaffolds = {run.keys.get("scaffold") for run in collected.conflicts}
        group = ["model", "scaffold"] if len(scaffolds) > 1 else ["model"]
        report.breakdowns += conflict_tables(collected.conflicts, group, rule)
        report.notes.append(
            f"{len(collected.conflicts)} trial(s) of conflict instances: the two checks "
            "deciding which side of the contradiction a run followed are left out of "
            f"{report.isr_name}/{report.csr_name} and shown in the OctoBench-Conflict tables."
        )
        if not any(run.attributions for run in collected.conflicts):
            report.notes.append(
                "No judge attributed the conflict runs (no judge panel): Table 4, decided by "
                "an LLM judge as in the paper, is left out; the side checks are shown."
            )
    report.panel = panel_tables(collected, judged)
    if human_labels is not None:
        report.panel.append(human_table(store, load_human_labels(human_labels)))
    report.breakdowns += spend_tables(store, prices)
    return report


def judge_incomplete_notes(
    sets: list[ScoredTrial], judges: list[str], rule: Aggregation, report: Report
) -> list[str]:
    """Under ``mean``: the judges whose own errors leave trials out of their rates only.

    The INCOMPLETE line and the exit status follow the stored verdicts (a check every
    judge errored on); a check only some judges errored on is decided there but
    undecided for those judges, whose rates rest on fewer trials.
    """
    if rule != "mean" or len(judges) < 2:
        return []
    stored = report.totals.incomplete
    found = []
    for judge in judges:
        mine = [t for t in sets if t.keys.get("judge") == judge and t.status == "ok"]
        incomplete = sum(1 for t in mine if not t.score().complete)
        if incomplete > stored:
            found.append(f"{judge} {incomplete}")
    if not found:
        return []
    return [
        "Some judges could not decide checks the others did (their `error` verdicts): "
        f"trials incomplete per judge: {', '.join(found)} (stored verdicts: {stored}). "
        "Each such trial is left out of that judge's rates only, never counted as a pass; "
        "the exit status follows the stored verdicts."
    ]


def octobench_tables(
    store: RolloutStore,
    collected: Collected,
    judged: dict[str, dict[str, list[Verdict]]],
    sets: list[ScoredTrial],
    report: Report,
) -> tuple[list[Table], tuple[str, str] | None]:
    """The paper's Tables 2, 3, 13–15 and Figure 3's table, and Figure 3's plot.

    ``sets``: the report's scoring sets (the rule's); Table 2's per-judge columns are
    every judge's own scoring whatever the rule. The plot (title, SVG) only when the
    trials span two turn bins or more.
    """
    sources = {i.id: {c.id: c.source.value for c in i.checks} for i in collected.instances.values()}
    names = (report.isr_name, report.csr_name)
    per_judge = per_judge_trials(collected.trials, judged)
    tables = paper_tables(sets, sources, names, per_judge=per_judge)
    unreadable: list[str] = []
    figure = turns_figure(sets, interaction_turns(store, unreadable), report.isr_name)
    if unreadable:
        report.notes.append(
            f"Figure 3 leaves out {len(unreadable)} trial(s) whose trajectory cannot be "
            f"read: {'; '.join(unreadable[:3])}{' …' if len(unreadable) > 3 else ''}"
        )
    if figure is None:
        return tables, None
    table, svg = figure
    plotted = len(table.header) > 2  # a plot of one bin would be one point a model
    return [*tables, table], (table.title, svg) if plotted else None


def version_note(collected: Collected) -> str:
    """Which scaffold versions the trials ran, from their results; empty when unrecorded."""
    counts: Counter[tuple[str, str]] = Counter(
        (str(t.keys["scaffold"]), str(t.keys["scaffold_version"]))
        for t in collected.trials
        if "scaffold_version" in t.keys
    )
    if not counts:
        return ""
    ran = ", ".join(
        f"{scaffold} {version} ({count} trial{'s' if count != 1 else ''})"
        for (scaffold, version), count in sorted(counts.items())
    )
    return f"Scaffold versions that ran: {ran}."


def read_judged(store: RolloutStore, collected: Collected) -> dict[str, dict[str, list[Verdict]]]:
    """Per finished trial id: judge name → that judge's verdicts (conflict sides left out)."""
    scored = {str(t.keys["trial"]): t for t in collected.trials}
    out: dict[str, dict[str, list[Verdict]]] = {}
    for stored in store.iter_trials():
        trial = stored.result.trial
        if stored.result.status != "ok":
            continue
        kept = {v.check_id for v in scored[trial.id].verdicts} if trial.id in scored else set()
        judged = {
            name: [v for v in vs if v.check_id in kept]
            for name, vs in store.read_judge_verdicts(trial).items()
        }
        if judged:
            out[trial.id] = judged
    return out


def panel_tables(collected: Collected, judged: dict[str, dict[str, list[Verdict]]]) -> list[Table]:
    """Scores per judge with mean ± std across judges, and the judges' agreement."""
    judges = judge_names(judged)
    if not judges:
        return []
    per_trial = per_judge_trials(collected.trials, judged)
    labels: dict[str, dict[ItemKey, str]] = {}
    for trial_id, by_judge in judged.items():
        for name, verdicts in by_judge.items():
            labels.setdefault(name, {}).update(verdict_labels(trial_id, verdicts))
    scores = panel_scores(per_trial, by=("model", "scaffold"))
    rows = []
    for (model, scaffold), score in sorted(scores.items()):
        cells = [
            f"{pct(score.judges[j].isr)} / {pct(score.judges[j].csr)}" if j in score.judges else "–"
            for j in judges
        ]
        rows.append(
            [
                str(model),
                str(scaffold),
                *cells,
                Across(score.judges, len(judges)).cell("isr"),
                Across(score.judges, len(judges)).cell("csr"),
            ]
        )
    tables = [
        Table(
            title="Scores per judge (ISR / CSR) and across judges (mean ± std)",
            header=["model", "scaffold", *judges, "ISR mean ± std", "CSR mean ± std"],
            rows=rows,
        )
    ]
    tables += _rank_tables(per_trial)
    agreement = panel_agreement(labels)
    pair_rows = [
        [p.judge_a, p.judge_b, str(p.items), pct(p.exact_match), _num(p.kappa)]
        for p in agreement.pairs
    ]
    pair_rows.append(
        ["all judges", "(Fleiss)", str(agreement.fleiss_items), "–", _num(agreement.fleiss_kappa)]
    )
    tables.append(
        Table(
            title="Judge agreement (judge-decided items)",
            header=["judge", "judge", "items", "exact match", "κ"],
            rows=pair_rows,
        )
    )
    return tables


def human_table(store: RolloutStore, labels: list[HumanLabel]) -> Table:
    """Agreement of each judge (and the majority vote) with human labels."""
    trials = [stored.result.trial for stored in store.iter_trials()]
    resolved = resolve_human_labels(labels, trials)
    judges: dict[str, dict[ItemKey, str]] = {}
    for stored in store.iter_trials():
        trial = stored.result.trial
        for name, verdicts in store.read_judge_verdicts(trial).items():
            judges.setdefault(name, {}).update(verdict_labels(trial.id, verdicts))
        judged_by_panel = [v for v in stored.verdicts if v.decided_by == "panel:majority"]
        judges.setdefault("majority vote", {}).update(verdict_labels(trial.id, judged_by_panel))
    rows = [
        [a.judge, str(a.items), pct(a.exact_match), _num(a.kappa), str(a.not_judged)]
        for a in human_agreement(resolved.labels, judges).values()
    ]
    title = f"Agreement with human labels ({len(resolved.labels)} labelled items"
    if resolved.unresolved:
        title += f"; {len(resolved.unresolved)} labels name no trial of this rollout"
    return Table(
        title=title + ")",
        header=["judge", "items", "exact match", "κ", "not judged"],
        rows=rows,
    )


def _rank_tables(per_trial: list[ScoredTrial]) -> list[Table]:
    """How the model ranking (by ISR and by CSR) moves across judges."""
    scores = panel_scores(per_trial, by=("model",))
    if len(scores) < 2:
        return []
    rows = []
    for metric in ("isr", "csr"):
        by_judge: dict[str, dict[str, float | None]] = {}
        for (model,), score in scores.items():
            for judge, rates in score.judges.items():
                by_judge.setdefault(judge, {})[str(model)] = getattr(rates, metric)
        stability = rank_stability(by_judge)
        taus = [t for t in stability.tau.values() if t is not None]
        for model in stability.models:
            ranks = ", ".join(f"{j}: {stability.ranks[j][model]}" for j in stability.ranks)
            rows.append([metric.upper(), model, ranks, str(stability.shifts[model])])
        rows.append(
            [
                metric.upper(),
                "(all models)",
                f"min Kendall τ {min(taus):.3f}" if taus else "Kendall τ undefined",
                str(stability.max_shift),
            ]
        )
    return [
        Table(
            title="Rank stability of models across judges",
            header=["by", "model", "rank per judge", "max shift"],
            rows=rows,
        )
    ]


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"
