"""What a Rollout's plan depends on, read from the API, and the plan cached per rollout.

:func:`current_plan` parses the Rollout, reads its Benchmark, JudgePanel and the
Secrets they name, and plans the rollout (:func:`~adhere.operator._planning.plan_rollout`)
only when something the plan depends on changed; a plan that cannot be made comes
back with its problem for the status.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from adhere.errors import SpecError
from adhere.operator._config import OperatorConfig
from adhere.operator._jobs import RolloutRef
from adhere.operator._kube import Kube
from adhere.operator._names import GROUP, VERSION
from adhere.operator._planning import (
    RolloutPlan,
    decode_secret_values,
    plan_key,
    plan_rollout,
    storage_for,
)
from adhere.operator._status import PlanProblem, keeps_plan
from adhere.operator._validate import (
    check_cluster_rollout,
    describe,
    missing_secrets,
    model_secret_refs,
    panel_secret_refs,
    parse_body,
)
from adhere.spec import Benchmark, JudgePanel, Rollout, SecretKeyRef

log = logging.getLogger(__name__)


async def current_plan(
    kube: Kube,
    config: OperatorConfig,
    plans: dict[str, RolloutPlan],
    body: Mapping[str, Any],
    ref: RolloutRef,
) -> tuple[RolloutPlan, Rollout | None]:
    """The rollout's current plan: cached in ``plans`` while nothing it depends on changed.

    Args:
        kube: The API client.
        config: The operator's settings.
        plans: Rollout uid → its cached plan (updated here when a plan is kept).
        body: The Rollout object as read from the API.
        ref: The rollout's name, namespace and uid.

    Returns:
        The plan (with its problem, when it cannot be made) and the parsed Rollout
        (``None`` when the plan has a problem found before planning).
    """
    try:
        rollout = parse_body(Rollout, body)
        check_cluster_rollout(rollout, where=describe(body))
    except SpecError as exc:
        return RolloutPlan("", problem=PlanProblem("InvalidSpec", str(exc))), None
    bench_body = await asyncio.to_thread(
        kube.get, GROUP, VERSION, "benchmarks", ref.namespace, rollout.spec.benchmark
    )
    if bench_body is None:
        message = f"spec.benchmark: Benchmark {rollout.spec.benchmark!r} not found"
        return RolloutPlan("", problem=PlanProblem("BenchmarkNotFound", message)), None
    try:
        benchmark = parse_body(Benchmark, bench_body)
    except SpecError as exc:
        return RolloutPlan("", problem=PlanProblem("BenchmarkInvalid", str(exc))), None
    panel = None
    if rollout.spec.judge_panel:
        panel_body = await asyncio.to_thread(
            kube.get,
            GROUP,
            VERSION,
            "judgepanels",
            ref.namespace,
            rollout.spec.judge_panel,
        )
        if panel_body is None:
            message = f"spec.judgePanel: JudgePanel {rollout.spec.judge_panel!r} not found"
            return RolloutPlan("", problem=PlanProblem("JudgePanelNotFound", message)), None
        try:
            panel = parse_body(JudgePanel, panel_body)
        except SpecError as exc:
            return RolloutPlan("", problem=PlanProblem("JudgePanelInvalid", str(exc))), None
    refs = model_secret_refs(rollout) + (panel_secret_refs(panel) if panel else [])
    secrets = await read_secrets(kube, ref.namespace, [r for _, r in refs])
    missing = missing_secrets(refs, secrets)
    if missing:
        return RolloutPlan("", problem=PlanProblem("SecretNotFound", "; ".join(missing))), None
    key = plan_key(rollout, benchmark, panel, storage_for(rollout, config))
    cached = plans.get(ref.uid)
    if cached is not None and cached.plan_id == key:
        return cached, rollout
    values = [
        v
        for _, r in model_secret_refs(rollout)
        for v in decode_secret_values(secrets.get(r.name), [r.key])
    ]
    plan = await asyncio.to_thread(
        plan_rollout, rollout, benchmark, panel, config, plan_id=key, secrets=values
    )
    if keeps_plan(plan.problem):
        plans[ref.uid] = plan
        log.info("rollout %s/%s planned: %s", ref.namespace, ref.name, plan.note)
    return plan, rollout


async def read_secrets(
    kube: Kube, namespace: str, refs: list[SecretKeyRef]
) -> dict[str, dict[str, Any] | None]:
    """Secret name → its data (``None`` when it does not exist), for the secrets ``refs`` name."""
    names = sorted({r.name for r in refs})
    found = await asyncio.gather(
        *(asyncio.to_thread(kube.secret_data, namespace, n) for n in names)
    )
    return dict(zip(names, found, strict=True))
