"""The judge actor's panel orders calls as the in-process pass does (same endpoints, limits)."""

from adhere.judging import endpoint_key
from adhere.ray_jobs._limiter import limiter_name
from adhere.ray_jobs._workers import JudgeWorker
from adhere.scoring import JudgeAsks
from adhere.spec import Endpoint, Judge, JudgePanel, JudgePanelSpec, Limits, ObjectMeta


async def test_judge_actor_judges_carry_the_endpoint_and_its_prefix_concurrency() -> None:
    shared = Endpoint(
        base_url="http://127.0.0.1:9/v1", model="m", limits=Limits(prefix_concurrency=1)
    )
    other = Endpoint(api="anthropic", base_url="http://127.0.0.1:9", model="m")
    judges = [Judge(name="a", endpoint=shared), Judge(name="b", endpoint=shared)]
    judges.append(Judge(name="c", endpoint=other))
    panel = JudgePanel(metadata=ObjectMeta(name="p"), spec=JudgePanelSpec(judges=judges))
    endpoints = {j.name: j.endpoint for j in judges}
    worker = JudgeWorker(panel, endpoints, {name: object() for name in endpoints})
    in_process = JudgeAsks(endpoints)
    try:
        on_ray = worker._panel()
        here = in_process.judges(panel)
        assert [(j.name, j.endpoint, j.prefix_concurrency) for j in on_ray] == [
            (j.name, j.endpoint, j.prefix_concurrency) for j in here
        ]
        assert [j.endpoint for j in on_ray] == [endpoint_key(shared)] * 2 + [endpoint_key(other)]
        assert [j.prefix_concurrency for j in on_ray] == [1, 1, None]
        # One prefix group per limiter actor: the same notion of "one endpoint".
        groups = {j.prefix_group for j in on_ray}
        assert len(groups) == len({limiter_name(e) for e in endpoints.values()}) == 2
    finally:
        await worker.aclose()
        await in_process.aclose()
