"""GuideBench metrics and report tables, computed from verdicts.

Per category (one verdict per task, its ``details`` carrying the gold label, the
parsed label and the normalizations):

* accuracy = correct answers / tasks (invalid answers and failed trials count as
  wrong, never dropped);
* macro precision, recall and F1 over the labels that occur as gold or as a valid
  prediction: per label P = TP / predicted, R = TP / gold, F1 = 2PR / (P + R), each
  0 when its denominator is 0; the macro value is the plain mean over labels.
  Invalid answers predict no label, so they lower recall but no label's precision
  (the paper's protocol gives them a placeholder label instead, as its public
  evaluator does: ``details["label"]``). Math too: each amount is a label, as in
  the paper's Table 2 (its public evaluator computes them so for every category).
* overall = task-weighted: accuracy over all tasks; P/R/F1 the task-weighted mean
  of the per-category macro values (categories where they are defined).

Rule-update tasks (a guideline marked 新增) are compared with the other tasks of
their category in a table of their own.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from adhere.metrics import ScoredTrial, Table, pct
from adhere.suites.guidebench._agreement import parser_table
from adhere.suites.guidebench._edit_table import edit_table
from adhere.suites.guidebench._normalize import STEPS, normalize
from adhere.suites.guidebench._task import CATEGORIES

VERIFIER = "guidebench.answer"


@dataclass(frozen=True)
class Answer:
    """One task's answer as metrics see it."""

    category: str
    gold: str | None
    predicted: str | None
    outcome: str
    """``correct``, ``wrong``, ``invalid`` or ``error`` (the trial failed)."""
    rule_update: bool = False
    steps: tuple[str, ...] = ()
    rules_outcome: str | None = None
    """Under ``parse: llm``: the rule-based parser's outcome of the same reply."""
    same_answer: bool | None = None
    """Under ``parse: llm``: whether the two parsers found the same answer."""
    instance: str = ""
    edit: str | None = None
    """Rule edits: ``original`` or ``edited``; ``edit_pair`` names the other task."""
    edit_pair: str | None = None
    kept_old: bool = False
    """An edited task answered with the answer from before the edit."""


@dataclass(frozen=True)
class Scores:
    """Scores of a set of answers."""

    tasks: int
    correct: int
    invalid: int
    normalized: int
    precision: float | None
    recall: float | None
    f1: float | None
    undecided: int = 0
    """Answers left out: their check errored (e.g. the LLM parser gave none)."""

    @property
    def accuracy(self) -> float | None:
        """Correct answers over tasks."""
        return self.correct / self.tasks if self.tasks else None


def macro_prf(pairs: Sequence[tuple[str | None, str | None]]) -> tuple[float, float, float] | None:
    """Macro precision, recall and F1 of (gold, predicted) pairs (``None``: no label)."""
    labels = sorted({g for g, _ in pairs if g is not None} | {p for _, p in pairs if p is not None})
    if not labels:
        return None
    precision = recall = f1 = 0.0
    for label in labels:
        tp = sum(1 for g, p in pairs if g == label and p == label)
        predicted = sum(1 for _, p in pairs if p == label)
        gold = sum(1 for g, _ in pairs if g == label)
        p_l = tp / predicted if predicted else 0.0
        r_l = tp / gold if gold else 0.0
        precision += p_l
        recall += r_l
        f1 += 2 * p_l * r_l / (p_l + r_l) if p_l + r_l else 0.0
    n = len(labels)
    return precision / n, recall / n, f1 / n


def score(answers: Sequence[Answer]) -> Scores:
    """Accuracy, macro P/R/F1 and counts of one category (undecided answers left out)."""
    undecided = sum(1 for a in answers if a.outcome == "undecided")
    answers = [a for a in answers if a.outcome != "undecided"]
    prf = macro_prf([(a.gold, a.predicted) for a in answers])
    return Scores(
        undecided=undecided,
        tasks=len(answers),
        correct=sum(1 for a in answers if a.outcome == "correct"),
        invalid=sum(1 for a in answers if a.outcome == "invalid"),
        normalized=sum(1 for a in answers if a.steps),
        precision=prf[0] if prf else None,
        recall=prf[1] if prf else None,
        f1=prf[2] if prf else None,
    )


def overall(per_category: dict[str, Scores]) -> Scores:
    """Task-weighted scores over categories."""
    tasks = sum(s.tasks for s in per_category.values())

    def weighted(name: str) -> float | None:
        pairs = [(s.tasks, getattr(s, name)) for s in per_category.values()]
        defined = [(n, v) for n, v in pairs if v is not None]
        weight = sum(n for n, _ in defined)
        return sum(n * v for n, v in defined) / weight if weight else None

    return Scores(
        undecided=sum(s.undecided for s in per_category.values()),
        tasks=tasks,
        correct=sum(s.correct for s in per_category.values()),
        invalid=sum(s.invalid for s in per_category.values()),
        normalized=sum(s.normalized for s in per_category.values()),
        precision=weighted("precision"),
        recall=weighted("recall"),
        f1=weighted("f1"),
    )


def answers_by_group(
    trials: Iterable[ScoredTrial],
) -> tuple[list[str], dict[tuple[str, ...], list[Answer]]]:
    """Answers of GuideBench trials grouped by model (and scaffold when several)."""
    # a trial the model service failed is not scored (as in every rate)
    trials = [
        t for t in trials if t.keys.get("category") in CATEGORIES and t.status != "upstream_fault"
    ]
    scaffolds = {t.keys.get("scaffold") for t in trials}
    group = ["model", "scaffold"] if len(scaffolds) > 1 else ["model"]
    out: dict[tuple[str, ...], list[Answer]] = defaultdict(list)
    for trial in trials:
        key = tuple(str(trial.keys.get(k)) for k in group)
        category = str(trial.keys["category"])
        verdict = next((v for v in trial.verdicts if v.check_id == "answer"), None)
        details = verdict.details if verdict is not None else {}
        if verdict is None or verdict.result == "error":
            # a failed run is a wrong answer; an ok run whose check errored is undecided
            outcome = "error" if trial.status != "ok" else "undecided"
        else:
            outcome = str(details.get("category", "wrong"))
        got = details.get("label", details.get("got"))  # label: the paper's placeholder
        # a failed run's verdict has no details: the gold label from the metadata
        expected = details.get("expected", trial.keys.get("gold_label", trial.keys.get("gold")))
        out[key].append(
            Answer(
                category=category,
                gold=None if expected is None else str(expected),
                predicted=None if got is None else str(got),
                outcome=outcome,
                rule_update=bool(trial.keys.get("rule_update")),
                steps=tuple(details.get("normalized") or ()),
                rules_outcome=_rules(details, "category") if details.get("via") == "llm" else None,
                same_answer=_rules(details, "agrees") if details.get("via") == "llm" else None,
                instance=str(trial.keys.get("instance", "")),
                edit=_opt(trial.keys.get("rule_edit")),
                edit_pair=_opt(trial.keys.get("edit_pair")),
                kept_old=kept_old(details.get("got"), trial.keys.get("edit_original_answer")),
            )
        )
    return group, dict(sorted(out.items()))


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


def kept_old(got: object, old: object) -> bool:
    """Whether a math answer (canonical, or raw as the paper's parsers keep it) is ``old``."""
    if got is None or old is None:
        return False
    return normalize("numeric", got, ()).value == str(old)


def _rules(details: dict[str, object], key: str) -> Any:
    rules = details.get("rules")
    return rules.get(key) if isinstance(rules, dict) else None


def _by_category(answers: Sequence[Answer]) -> dict[str, Scores]:
    split: dict[str, list[Answer]] = defaultdict(list)
    for answer in answers:
        split[answer.category].append(answer)
    return {key: score(split[key]) for key in CATEGORIES if key in split}


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}"


def report_tables(trials: Iterable[ScoredTrial]) -> tuple[list[Table], list[Table]]:
    """(paper-layout tables, further breakdowns) for a GuideBench rollout."""
    group, answers = answers_by_group(trials)
    if not answers:
        return [], []
    present = [k for k in CATEGORIES if any(a.category == k for v in answers.values() for a in v)]
    main_rows, detail_rows = [], []
    for key, group_answers in answers.items():
        per_category = _by_category(group_answers)
        total = overall(per_category)
        main_rows.append(
            [
                *key,
                *(pct(per_category[c].accuracy) if c in per_category else "–" for c in present),
                pct(total.accuracy),
            ]
        )
        for category, s in [*per_category.items(), ("overall", total)]:
            detail_rows.append(
                [
                    *key,
                    category,
                    str(s.tasks),
                    pct(s.accuracy),
                    _num(s.precision),
                    _num(s.recall),
                    _num(s.f1),
                    str(s.invalid),
                    str(s.normalized),
                    str(s.undecided),
                ]
            )
    paper = [
        Table(
            title="GuideBench accuracy per category (paper layout; overall weighted by task count)",
            header=[*group, *present, "overall"],
            rows=main_rows,
        ),
        Table(
            title="GuideBench per category: accuracy; macro precision (P), recall (R), F1 in %; "
            "invalid and normalized answers; undecided (left out)",
            header=[*group, "category", "tasks", "accuracy", "P", "R", "F1",
                    "invalid", "normalized", "undecided"],
            rows=detail_rows,
        ),
    ]  # fmt: skip
    tables = (_update_table(group, answers), edit_table(group, answers),
              _steps_table(group, answers), parser_table(group, answers))  # fmt: skip
    extra = [t for t in tables if t]
    return paper, extra


def _update_table(group: list[str], answers: dict[tuple[str, ...], list[Answer]]) -> Table | None:
    rows = []
    for key, group_answers in answers.items():
        updated = {a.category for a in group_answers if a.rule_update}
        for category in (c for c in CATEGORIES if c in updated):
            mine = [a for a in group_answers if a.category == category]
            with_update = score([a for a in mine if a.rule_update])
            without = score([a for a in mine if not a.rule_update])
            rows.append(
                [
                    *key,
                    category,
                    str(with_update.tasks),
                    pct(with_update.accuracy),
                    str(without.tasks),
                    pct(without.accuracy),
                ]
            )
    if not rows:
        return None
    return Table(
        title="GuideBench rule updates: tasks with a newly added rule (新增) vs the rest",
        header=[
            *group,
            "category",
            "tasks with update",
            "accuracy with",
            "tasks without",
            "accuracy without",
        ],
        rows=rows,
    )


def _steps_table(group: list[str], answers: dict[tuple[str, ...], list[Answer]]) -> Table | None:
    rows = []
    for key, group_answers in answers.items():
        counts: Counter[str] = Counter(step for a in group_answers for step in a.steps)
        correct: Counter[str] = Counter(
            step for a in group_answers if a.outcome == "correct" for step in a.steps
        )
        for step in (s for s in STEPS if counts[s]):
            rows.append([*key, step, str(counts[step]), str(correct[step])])
        invalid = sum(1 for a in group_answers if a.outcome == "invalid")
        if invalid:
            rows.append([*key, "(invalid: no usable answer)", str(invalid), "0"])
    if not rows:
        return None
    return Table(
        title="GuideBench answer normalizations (answers an exact-match scorer would mis-score)",
        header=[*group, "normalization", "answers", "of them correct"],
        rows=rows,
    )
