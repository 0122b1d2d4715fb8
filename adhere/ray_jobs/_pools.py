"""The actors of one scoring pass: verification pool, judge pool, one limiter per endpoint.

Ray's stubs do not type actor method calls, so handles are ``Any`` here and nowhere
else. Ray is imported when a pool is started, never at import time.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adhere.errors import SpecError
from adhere.ray_jobs._limiter import LeaseLimiter, limiter_name
from adhere.ray_jobs._workers import JudgeWorker, VerifyWorker
from adhere.spec import Endpoint, JudgePanel
from adhere.suites import Suite

__all__ = ["Pools", "start_pools"]

_LIMITER_WAITERS = 100_000
"""Calls a limiter actor accepts at once (waiting callers included)."""
_NAME_RELEASE_SECONDS = 10.0


@dataclass
class Pools:
    """Actor handles of one scoring pass, and how busy each pool member is.

    Attributes:
        verify: Verification actors.
        judge: Judge actors (empty without a panel).
        limiters: Limiter actor name → handle, one per judge endpoint.
    """

    verify: list[Any]
    judge: list[Any]
    limiters: dict[str, Any]
    busy: dict[tuple[str, int], int] = field(default_factory=dict)

    def take(self, pool: str) -> tuple[int, Any]:
        """The least busy member of ``pool`` (``verify`` or ``judge``), counted as busier."""
        members = self.verify if pool == "verify" else self.judge
        index = min(range(len(members)), key=lambda i: self.busy.get((pool, i), 0))
        self.busy[(pool, index)] = self.busy.get((pool, index), 0) + 1
        return index, members[index]

    def done(self, pool: str, index: int) -> None:
        """One task of ``pool[index]`` finished."""
        self.busy[(pool, index)] -= 1

    def judge_calls(self) -> list[int]:
        """Judge calls made by each judge actor."""
        import ray

        return list(ray.get([actor.calls.remote() for actor in self.judge]))

    def limiter_stats(self) -> dict[str, dict[str, Any]]:
        """Each limiter's :meth:`~adhere.ray_jobs._limiter.LeaseLimiter.stats`, by name."""
        import ray

        names = list(self.limiters)
        found = ray.get([self.limiters[n].stats.remote() for n in names])
        return dict(zip(names, found, strict=True))

    def stop(self) -> None:
        """Close the panel's clients and end every actor (their names are free after)."""
        import ray

        try:
            ray.get([actor.aclose.remote() for actor in [*self.judge, *self.verify]], timeout=30)
        except Exception:  # noqa: BLE001 - best effort: the actors are killed next anyway
            pass
        for actor in [*self.verify, *self.judge, *self.limiters.values()]:
            ray.kill(actor)
        deadline = time.monotonic() + _NAME_RELEASE_SECONDS
        for name in self.limiters:
            while time.monotonic() < deadline:
                try:
                    ray.get_actor(name)
                except ValueError:
                    break
                time.sleep(0.05)


def _limiter_names(
    panel: JudgePanel | None, endpoints: Mapping[str, Endpoint]
) -> dict[str, tuple[str, Endpoint]]:
    """Judge name → (limiter actor name, endpoint); one budget per endpoint.

    Raises:
        SpecError: Two judges on the same endpoint give it different limits.
    """
    out: dict[str, tuple[str, Endpoint]] = {}
    seen: dict[str, tuple[str, Endpoint]] = {}
    for n, judge in enumerate(panel.spec.judges if panel is not None else []):
        endpoint = endpoints[judge.name]
        name = limiter_name(endpoint)
        first = seen.setdefault(name, (judge.name, endpoint))
        budget = (endpoint.limits.concurrency, endpoint.limits.requests_per_second)
        known = (first[1].limits.concurrency, first[1].limits.requests_per_second)
        if budget != known:
            raise SpecError(
                f"judges {first[0]!r} and {judge.name!r} share an endpoint but not its "
                f"limits (concurrency, requestsPerSecond): {known} and {budget}",
                field=f"spec.judges[{n}].endpoint.limits",
            )
        out[judge.name] = (name, endpoint)
    return out


def start_pools(
    *,
    suites: Mapping[str, Suite],
    panel: JudgePanel | None,
    endpoints: Mapping[str, Endpoint],
    verify_actors: int,
    judge_actors: int,
    trials_per_judge_actor: int,
    verify_cpus: float,
) -> Pools:
    """Start the actors of a scoring pass (Ray must be initialized)."""
    import ray

    if verify_actors < 1 or judge_actors < 1:
        raise ValueError("a scoring pass needs at least one verification and one judge actor")
    by_judge = _limiter_names(panel, endpoints)
    limiter_class = ray.remote(LeaseLimiter)
    limiters: dict[str, Any] = {}
    for name, endpoint in by_judge.values():
        if name not in limiters:
            limiters[name] = limiter_class.options(
                name=name, num_cpus=0, max_concurrency=_LIMITER_WAITERS
            ).remote(endpoint.limits)
    verify_class = ray.remote(VerifyWorker)
    suites_ref = ray.put(dict(suites))
    handles = {judge_name: limiters[name] for judge_name, (name, _) in by_judge.items()}
    verify = [
        verify_class.options(num_cpus=verify_cpus).remote(
            suites_ref, panel, dict(endpoints) if panel is not None else None, handles
        )
        for _ in range(verify_actors)
    ]
    judge: list[Any] = []
    if panel is not None:
        judge_class = ray.remote(JudgeWorker)
        judge = [
            judge_class.options(num_cpus=0, max_concurrency=trials_per_judge_actor).remote(
                panel, dict(endpoints), handles
            )
            for _ in range(judge_actors)
        ]
    return Pools(verify=verify, judge=judge, limiters=limiters)
