"""The Ray scoring pass attributes conflict runs as the in-process pass does (Table 4)."""

import json
import shutil
from pathlib import Path

import pytest

from adhere.artifacts import open_rollout_dir
from adhere.ray_jobs import ray_scorer
from adhere.report._conflict import TABLE4_TITLE
from adhere.report._results import report_for
from adhere.runner import execute, prepare
from adhere.runner._rescore import rescore
from adhere.spec import load_run_config
from tests.integration.test_conflict import rollout
from tests.integration.test_conflict_table4 import PANEL

pytestmark = pytest.mark.usefixtures("local_ray")

FILES = ("verdicts.json", "judge_verdicts.json", "conflict_verdicts.json")


def trial_files(run: Path, name: str) -> dict[str, object]:
    """Relative path → parsed JSON of every trial's file ``name``, ``cached`` marks dropped.

    Two policies can leave the same transcript (e.g. both obey the system prompt):
    in process the second trial's judges hit the verdict cache the first filled
    (``details.cached``), while on Ray both trials may be asked at once. The verdicts
    are the same; only that mark differs.
    """
    return {
        str(path.relative_to(run)): _uncached(json.loads(path.read_text()))
        for path in sorted((run / "trials").rglob(name))
    }


def _uncached(data: object) -> object:
    if isinstance(data, dict):
        return {k: _uncached(v) for k, v in data.items() if k != "cached"}
    if isinstance(data, list):
        return [_uncached(v) for v in data]
    return data


async def test_ray_scoring_stores_the_in_process_conflict_attributions(tmp_path: Path) -> None:
    # The conflict sample (5 instances, 4 scripted policies) under the reference agent,
    # judged by two scripted judges that garble, hedge and disagree: 20 trials.
    path = rollout(tmp_path)
    text = path.read_text().replace(
        "  benchmark: octobench-conflict\n", "  benchmark: octobench-conflict\n  judgePanel: p\n"
    )
    path.write_text(PANEL + text)
    in_process = (await execute(prepare(load_run_config([path])))).scoring
    assert in_process.trials == 20 and in_process.attributions == 40

    # The same stored rollout under a fresh root (a fresh verdict cache), scored on Ray.
    run = tmp_path / "runs" / "octobench-conflict"
    copy = tmp_path / "ray-runs" / "octobench-conflict"
    shutil.copytree(run, copy)
    for stale in copy.joinpath("trials").rglob("conflict_verdicts.json"):
        stale.unlink()  # what Ray writes is checked, not what was copied
    on_ray = await rescore(copy, scorer=ray_scorer(verify_actors=1, judge_actors=2))
    assert on_ray.judge_actors == 2
    assert on_ray.attributions == in_process.attributions == 40
    assert on_ray.problems == in_process.problems == []
    for name in FILES:
        expected = trial_files(run, name)
        assert len(expected) == 20, name
        assert trial_files(copy, name) == expected, name
    answers = {
        v[0]["details"].get("followed")
        for by_judge in trial_files(copy, "conflict_verdicts.json").values()
        for v in by_judge.values()
    }
    assert {"A", "B"} <= answers  # both sides attributed, not a constant answer

    def table4(where: Path) -> list[list[str]]:
        report = report_for(open_rollout_dir(where))
        return next(t for t in report.breakdowns if t.title == TABLE4_TITLE).rows

    assert table4(copy) == table4(run)
