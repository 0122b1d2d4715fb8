"""VeriCode metrics over verdicts: pass@1, FR_k, IF_instruction, IF_task, per category and position.

A *unit* is one checked answer: a single-turn trial (k = its instruction count) or one
turn of a multi-turn trial (k = the turn: instructions 1..k in force). Per group
(model, protocol) and k:

- pass@1 S_k = share of units whose tests passed;
- FR_k = (S_0 − S_k) / S_0, functional regression against the bare task (k = 0);
- IF_instruction = share of instruction checks passed;
- IF_task = share of units with every instruction check passed.

Per category and per position are taken at the largest k of the group (all five
instructions in force): primacy shows in single-turn, recency in multi-turn. Error
verdicts count as not passed. Everything is read from check ids (``tests``,
``style_3``, ``t2.tests``, ``t2.style_3``), so trials that failed to run count too.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from adhere.metrics import ScoredTrial, Table, pct
from adhere.suites.vericode._catalog import by_id
from adhere.suites.vericode._instruction import CATEGORIES

__all__ = [
    "POINTS",
    "Unit",
    "error_rates",
    "excluded_models",
    "group_units",
    "model_scores",
    "report_tables",
    "units",
]

_TURN = re.compile(r"^t(\d+)\.(.+)$")


@dataclass
class Unit:
    """One checked answer: tests outcome and instruction outcomes (id, position, passed)."""

    k: int
    tests: bool | None = None
    instructions: list[tuple[str, int, bool]] = field(default_factory=list)

    @property
    def all_followed(self) -> bool:
        """Every instruction check passed (vacuously true at k = 0)."""
        return all(passed for _, _, passed in self.instructions)


def units(trial: ScoredTrial) -> list[Unit]:
    """The units of one trial, from its verdicts' check ids."""
    by_turn: dict[int | None, Unit] = {}
    single_k = trial.keys.get("k")
    for verdict in trial.verdicts:
        if verdict.result == "n/a":
            continue
        match = _TURN.match(verdict.check_id)
        turn, name = (int(match.group(1)), match.group(2)) if match else (None, verdict.check_id)
        k = turn if turn is not None else int(single_k) if isinstance(single_k, int) else 0
        unit = by_turn.setdefault(turn, Unit(k=k))
        passed = verdict.result == "pass"
        if name == "tests":
            unit.tests = passed
        else:
            unit.instructions.append((name, len(unit.instructions) + 1, passed))
    return [by_turn[t] for t in sorted(by_turn, key=lambda t: -1 if t is None else t)]


def _group_keys(trials: list[ScoredTrial]) -> list[str]:
    scaffolds = {t.keys.get("scaffold") for t in trials}
    return ["model", "scaffold", "protocol"] if len(scaffolds) > 1 else ["model", "protocol"]


def group_units(
    trials: Iterable[ScoredTrial],
) -> tuple[list[str], dict[tuple[str, ...], list[Unit]]]:
    """Units by (model[, scaffold], protocol), with the names of the grouping keys."""
    mine = [t for t in trials if t.keys.get("protocol") in ("single", "multi")]
    keys = _group_keys(mine)
    out: dict[tuple[str, ...], list[Unit]] = defaultdict(list)
    for trial in mine:
        out[tuple(str(trial.keys.get(k)) for k in keys)] += units(trial)
    return keys, dict(sorted(out.items()))


def _share(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def pass_at_1(group: list[Unit], k: int) -> float | None:
    """S_k: the share of units at k whose tests passed."""
    return _share([u.tests is True for u in group if u.k == k])


def fr(group: list[Unit], k: int) -> float | None:
    """FR_k = (S_0 − S_k) / S_0 (undefined when S_0 is 0 or missing)."""
    s0, sk = pass_at_1(group, 0), pass_at_1(group, k)
    if not s0 or sk is None:
        return None
    return (s0 - sk) / s0


def if_instruction(group: list[Unit], k: int) -> float | None:
    """Share of instruction checks passed at k."""
    return _share([p for u in group if u.k == k for _, _, p in u.instructions])


def if_task(group: list[Unit], k: int) -> float | None:
    """Share of units at k with every instruction followed."""
    return _share([u.all_followed for u in group if u.k == k and u.instructions])


POINTS = ("paper", "largest")
"""Where vibe correlation takes IF and Func: ``paper`` — IF at one instruction
(single-turn k = 1), Func = pass@1 on the original prompt (k = 0); ``largest`` — both
at the largest k of the protocol."""


def error_rates(trials: Iterable[ScoredTrial]) -> dict[str, float]:
    """Per model: the share of its trials that ended in ``error`` (no usable reply)."""
    counts: dict[str, list[bool]] = defaultdict(list)
    for trial in trials:
        if trial.keys.get("protocol") in ("single", "multi"):
            counts[str(trial.keys.get("model"))].append(trial.status == "error")
    return {model: sum(flags) / len(flags) for model, flags in sorted(counts.items())}


def excluded_models(trials: Iterable[ScoredTrial], max_error_rate: float | None) -> list[str]:
    """Models whose error rate exceeds ``max_error_rate`` (the paper: 0.10); none when unset."""
    if max_error_rate is None:
        return []
    return [m for m, rate in error_rates(trials).items() if rate > max_error_rate]


def model_scores(
    trials: Iterable[ScoredTrial],
    *,
    protocol: str = "single",
    if_metric: str = "task",
    points: str = "paper",
    max_error_rate: float | None = None,
) -> dict[str, tuple[float, float]]:
    """Per model: (IF, Func) for vibe correlation, at ``points`` (see :data:`POINTS`).

    ``paper`` points read single-turn trials whatever ``protocol`` says (the paper takes
    IF from single-turn generation under one instruction); at k = 1 IF_task and
    IF_instruction agree. Models above ``max_error_rate`` are left out. A model without
    units at the points (no k = 1 or k = 0 trials) is left out too.
    """
    if points not in POINTS:
        raise ValueError(f"points must be one of {', '.join(POINTS)}, got {points!r}")
    trials = list(trials)
    dropped = set(excluded_models(trials, max_error_rate))
    wanted = "single" if points == "paper" else protocol
    per_model: dict[str, list[Unit]] = defaultdict(list)
    for trial in trials:
        model = str(trial.keys.get("model"))
        if trial.keys.get("protocol") == wanted and model not in dropped:
            per_model[model] += units(trial)
    out = {}
    for model, group in sorted(per_model.items()):
        if_k, func_k = (1, 0) if points == "paper" else (max(u.k for u in group),) * 2
        follow = if_task(group, if_k) if if_metric == "task" else if_instruction(group, if_k)
        func = pass_at_1(group, func_k)
        if follow is not None and func is not None:
            out[model] = (follow, func)
    return out


def _ks(group: list[Unit]) -> list[int]:
    return sorted({u.k for u in group})


def report_tables(trials: Iterable[ScoredTrial]) -> tuple[list[Table], list[Table]]:
    """(paper-layout tables, further breakdowns) for a VeriCode rollout."""
    keys, groups = group_units(trials)
    if not groups:
        return [], []
    ks = sorted({k for g in groups.values() for k in _ks(g)})
    positive = [k for k in ks if k > 0]
    functional = [
        [*key, *(pct(pass_at_1(g, k)) for k in ks), *(pct(fr(g, k)) for k in positive)]
        for key, g in groups.items()
    ]
    following = []
    for key, g in groups.items():
        following.append([*key, "IF_task", *(pct(if_task(g, k)) for k in positive)])
        following.append([*key, "IF_instruction", *(pct(if_instruction(g, k)) for k in positive)])
    paper = [
        Table(
            title="VeriCode functional correctness: pass@1 with k instructions and functional "
            "regression FR_k = (S_0 − S_k)/S_0",
            header=[*keys, *(f"pass@1 k={k}" for k in ks), *(f"FR_{k}" for k in positive)],
            rows=functional,
        ),
        Table(
            title="VeriCode instruction following per k (IF_task: all k followed; "
            "IF_instruction: share followed)",
            header=[*keys, "metric", *(f"k={k}" for k in positive)],
            rows=following,
        ),
    ]
    return paper, [t for t in (_category_table(keys, groups), _position_table(keys, groups),
                               _instruction_table(keys, groups)) if t]  # fmt: skip


def _top(group: list[Unit]) -> list[Unit]:
    top = max(u.k for u in group)
    return [u for u in group if u.k == top and u.instructions]


def _category_table(keys: list[str], groups: dict[tuple[str, ...], list[Unit]]) -> Table | None:
    rows = []
    for key, group in groups.items():
        top = _top(group)
        if not top:
            continue
        split: dict[str, list[bool]] = defaultdict(list)
        for unit in top:
            for name, _, passed in unit.instructions:
                split[by_id(name).category].append(passed)
        rows.append([*key, str(top[0].k), *(pct(_share(split[c])) for c in CATEGORIES)])
    if not rows:
        return None
    return Table(
        title="VeriCode IF_instruction per category (at the largest k)",
        header=[*keys, "k", *CATEGORIES],
        rows=rows,
    )


def _position_table(keys: list[str], groups: dict[tuple[str, ...], list[Unit]]) -> Table | None:
    rows = []
    width = 0
    for key, group in groups.items():
        top = _top(group)
        if not top:
            continue
        split: dict[int, list[bool]] = defaultdict(list)
        for unit in top:
            for _, position, passed in unit.instructions:
                split[position].append(passed)
        width = max(width, max(split))
        rows.append([*key, *(pct(_share(split[p])) for p in range(1, max(split) + 1))])
    if not rows:
        return None
    rows = [row + ["–"] * (len(keys) + width - len(row)) for row in rows]
    return Table(
        title="VeriCode IF by instruction position at the largest k (single-turn: primacy; "
        "multi-turn: recency — position k was given last)",
        header=[*keys, *(f"pos {p}" for p in range(1, width + 1))],
        rows=rows,
    )


def _instruction_table(keys: list[str], groups: dict[tuple[str, ...], list[Unit]]) -> Table | None:
    rows = []
    for key, group in groups.items():
        split: dict[str, list[bool]] = defaultdict(list)
        for unit in _top(group):
            for name, _, passed in unit.instructions:
                split[name].append(passed)
        for name in sorted(split, key=lambda n: (n.split("_")[0], int(n.split("_")[1]))):
            rows.append([*key, name, by_id(name).title, str(len(split[name])),
                         pct(_share(split[name]))])  # fmt: skip
    if not rows:
        return None
    return Table(
        title="VeriCode IF per instruction (at the largest k)",
        header=[*keys, "instruction", "what", "times given", "followed"],
        rows=rows,
    )
