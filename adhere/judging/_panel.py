"""A panel of judges over one trial, and how their verdicts are combined.

:func:`run_panel` runs every judge concurrently over the trial's judge-bound checks
(checks without a ``verifier``) and keeps each judge's verdicts. The calls of the
judges that share an endpoint (:attr:`PanelJudge.endpoint`) go through one
:class:`~adhere.judging._prefix.PrefixGate` per trial: one call first, the others
once it was answered, so the endpoint's prefix cache serves them the transcript. The
panel's ``aggregation`` says how scores are formed:

``mean`` (the paper's way)
    Each judge's verdicts are scored on their own (ISR, CSR per judge, see
    :mod:`adhere.judging._panel_scores`) and the scores are averaged across judges,
    reported as mean ± standard deviation. A judge's ``error`` verdicts count as not
    passed in that judge's scores, exactly as :mod:`adhere.metrics` treats errors.

``majority``
    One verdict per check by vote (:func:`majority_vote`):

    * ``error`` verdicts abstain; if every judge abstains the result is ``error``.
    * Otherwise the most frequent of pass / fail / n/a among the deciding judges wins.
    * Ties go to ``fail`` whenever ``fail`` is one of the tied results: a check
      counts as passed only when passing is the clear view of the panel. The one
      tie without ``fail`` (pass against n/a) goes to ``pass``: as many judges saw
      the condition arise as not, and none of them saw it broken.
    * The combined verdict keeps the votes (``details["votes"]``), the abstaining
      judges (``details["abstained"]``), and the reasoning and evidence of the first
      judge, in panel order, that voted for the outcome.

The majority vote is always computed (it is a cheap, readable summary); under
``mean`` it is not used for scores.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from adhere.core import Check, Trajectory, Verdict, VerdictResult
from adhere.judging._cache import VerdictCache
from adhere.judging._judge import DEFAULT_MAX_ATTEMPTS, judge_trial
from adhere.judging._judge_batches import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_MAX_OUTPUT_TOKENS,
    Grouping,
)
from adhere.judging._judge_call import Ask
from adhere.judging._prefix import Ordering, PrefixGate
from adhere.judging._prompt import PROMPT_VERSION
from adhere.judging._prompt_transcript import RenderLimits
from adhere.spec import Endpoint, Judge, JudgePanelSpec

__all__ = [
    "MAJORITY_JUDGE",
    "Aggregation",
    "PanelJudge",
    "PanelResult",
    "endpoint_key",
    "majority_vote",
    "panel_judges",
    "served_at",
    "run_panel",
]

Aggregation = Literal["mean", "majority"]
MAJORITY_JUDGE = "majority"
"""The judge name majority-vote verdicts are scored under (``decided_by = "panel:majority"``)."""


@dataclass(frozen=True)
class PanelJudge:
    """One judge of a panel: its name, its model and the ``ask`` that reaches it.

    Attributes:
        name: The judge's name in the panel.
        model: The judge's model (recorded, part of the cache key).
        ask: Sends a call to the judge's model.
        endpoint: Names the server the judge calls (:func:`endpoint_key`): judges with
            the same one share a prompt-prefix cache, so their calls on one trial are
            ordered together. Empty: the judge's ``model`` stands for it.
        prefix_concurrency: The endpoint's limit of calls in flight on one trial once
            the first was answered (``Limits.prefix_concurrency``); ``None``: no limit.
        served_at: Where the model is served as the spec says it (:func:`served_at`),
            part of the verdict cache key; empty leaves it out.
        max_tokens: The endpoint's ``maxTokens``, which bounds every call to it: the
            judge's batches are sized to the smaller of it and the panel's output cap.
            ``None``: the panel's cap alone.
    """

    name: str
    model: str
    ask: Ask
    endpoint: str = ""
    prefix_concurrency: int | None = None
    served_at: str = ""
    max_tokens: int | None = None

    def output_cap(self, panel_cap: int) -> int:
        """The output cap this judge's calls go out with, given the panel's."""
        return panel_cap if self.max_tokens is None else min(panel_cap, self.max_tokens)

    @property
    def prefix_group(self) -> str:
        """What judges sharing a prefix cache have in common: the endpoint, else the model."""
        return self.endpoint or f"model {self.model}"


def served_at(endpoint: Endpoint) -> str:
    """A spec endpoint's API shape and base URL (``scripted`` stays ``scripted``)."""
    return f"{endpoint.api} {endpoint.base_url.rstrip('/')}"


def endpoint_key(endpoint: Endpoint) -> str:
    """The :attr:`PanelJudge.endpoint` of an endpoint: its API, base URL and model."""
    return f"{endpoint.api} {endpoint.base_url.rstrip('/')} {endpoint.model}"


def panel_judges(spec: JudgePanelSpec, ask_for: Callable[[Judge], Ask]) -> list[PanelJudge]:
    """The panel's judges, each with the ``ask`` the edge built for it."""
    return [
        PanelJudge(
            j.name,
            j.endpoint.model,
            ask_for(j),
            endpoint=endpoint_key(j.endpoint),
            prefix_concurrency=j.endpoint.limits.prefix_concurrency,
            served_at=served_at(j.endpoint),
            max_tokens=j.endpoint.max_tokens,
        )
        for j in spec.judges
    ]


@dataclass(frozen=True)
class PanelResult:
    """Every judge's verdicts on one trial, and the majority vote.

    Attributes:
        aggregation: How scores are formed (``mean`` or ``majority``).
        per_judge: Judge name → one verdict per judged check, in check order.
        majority: The majority-vote verdicts, in check order.
    """

    aggregation: Aggregation
    per_judge: Mapping[str, list[Verdict]]
    majority: list[Verdict]

    @property
    def judges(self) -> list[str]:
        """Judge names in panel order."""
        return list(self.per_judge)

    def scoring_sets(self) -> dict[str, list[Verdict]]:
        """The verdict lists scores come from: one per judge (mean) or the vote (majority)."""
        if self.aggregation == "majority":
            return {MAJORITY_JUDGE: list(self.majority)}
        return {name: list(verdicts) for name, verdicts in self.per_judge.items()}


async def run_panel(
    judges: Sequence[PanelJudge],
    checks: Sequence[Check],
    trajectory: Trajectory,
    *,
    aggregation: Aggregation = "mean",
    batch_size: int = DEFAULT_BATCH_SIZE,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
    grouping: Grouping = "checklist",
    cache: VerdictCache | None = None,
    prompt_version: str = PROMPT_VERSION,
    limits: RenderLimits | None = None,
    ordering: Ordering = "prefix",
) -> PanelResult:
    """Run every judge concurrently over the checks that have no verifier.

    Options are passed to :func:`~adhere.judging._judge.judge_trial` for each judge.
    ``ordering="prefix"`` (the default) sends, per endpoint, one call first and the
    others once it was answered, at most the endpoint's ``prefix_concurrency`` at
    once; ``"concurrent"`` sends every call at once (the order before prefix
    ordering; verdicts are the same either way).

    Raises:
        ValueError: No judges, duplicate judge names, an unknown aggregation or
            ordering, or a bad option of ``judge_trial``.
    """
    if not judges:
        raise ValueError("a judge panel needs at least one judge")
    names = [judge.name for judge in judges]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate judge names in the panel: {names}")
    if aggregation not in ("mean", "majority"):
        raise ValueError(f"aggregation must be 'mean' or 'majority', got {aggregation!r}")
    judged = [check for check in checks if check.verifier is None]
    gates = _gates(judges, ordering)
    results = await asyncio.gather(
        *(
            judge_trial(
                judge.ask,
                judged,
                trajectory,
                judge_name=judge.name,
                model=judge.model,
                batch_size=batch_size,
                max_attempts=max_attempts,
                max_output_tokens=judge.output_cap(max_output_tokens),
                grouping=grouping,
                cache=cache,
                prompt_version=prompt_version,
                limits=limits,
                gate=gates[judge.prefix_group],
                judge_endpoint=judge.served_at,
            )
            for judge in judges
        )
    )
    per_judge = dict(zip(names, results, strict=True))
    return PanelResult(
        aggregation=aggregation, per_judge=per_judge, majority=majority_vote(per_judge)
    )


def _gates(judges: Sequence[PanelJudge], ordering: Ordering) -> dict[str, PrefixGate]:
    """One gate per endpoint for this trial; the narrowest ``prefix_concurrency`` applies."""
    widths: dict[str, list[int]] = {}
    for judge in judges:
        group = widths.setdefault(judge.prefix_group, [])
        if judge.prefix_concurrency is not None:
            group.append(judge.prefix_concurrency)
    return {
        group: PrefixGate.for_ordering(ordering, min(found) if found else None)
        for group, found in widths.items()
    }


_TIE_ORDER: tuple[VerdictResult, ...] = ("fail", "pass", "n/a")


def majority_vote(per_judge: Mapping[str, Sequence[Verdict]]) -> list[Verdict]:
    """One verdict per check by the rules in the module docstring.

    Check order is taken from the first judge; every judge must have judged the same
    checks.

    Raises:
        ValueError: The judges' verdict lists cover different checks.
    """
    if not per_judge:
        return []
    by_judge: dict[str, dict[str, Verdict]] = {}
    order: list[str] = []
    for name, verdicts in per_judge.items():
        by_judge[name] = {v.check_id: v for v in verdicts}
        if not order:
            order = [v.check_id for v in verdicts]
        elif set(by_judge[name]) != set(order):
            raise ValueError(f"judge {name!r} judged different checks than the others")
    return [_vote(check_id, {n: v[check_id] for n, v in by_judge.items()}) for check_id in order]


def _vote(check_id: str, votes: Mapping[str, Verdict]) -> Verdict:
    decided = {name: v for name, v in votes.items() if v.result != "error"}
    details: dict[str, object] = {
        "votes": {name: v.result for name, v in votes.items()},
        "abstained": [name for name, v in votes.items() if v.result == "error"],
    }
    if not decided:
        reasons = "; ".join(f"{name}: {v.reasoning}" for name, v in votes.items())
        return Verdict(
            check_id=check_id,
            result="error",
            decided_by=f"panel:{MAJORITY_JUDGE}",
            reasoning=f"no judge of the panel decided this check ({reasons})",
            details=details,
        )
    counts = Counter(v.result for v in decided.values())
    top = max(counts.values())
    tied = [result for result in _TIE_ORDER if counts.get(result, 0) == top]
    outcome = tied[0]
    if len(tied) > 1:
        details["tie"] = tied
    first = next(v for v in decided.values() if v.result == outcome)
    return Verdict(
        check_id=check_id,
        result=outcome,
        decided_by=f"panel:{MAJORITY_JUDGE}",
        reasoning=first.reasoning,
        evidence=first.evidence,
        details=details,
    )
