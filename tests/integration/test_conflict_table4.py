"""OctoBench-Conflict with a judge panel: Table 4 from the judges' attributions.

The sample conflict rollout runs under the reference agent with two scripted judges
(the scripted policy server plays them: they answer the attribution prompt from a
hash of the transcript, some replies garbled so the judge re-asks, some "both" /
"neither" / "unclear"). Table 4 is then recomputed here by hand from the stored
``conflict_verdicts.json`` files and compared with the report's.
"""

import asyncio
import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from adhere.artifacts import open_rollout_dir
from adhere.report._conflict import TABLE4_TITLE
from adhere.report._results import report_for
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.integration.test_conflict import rollout

PANEL = """\
apiVersion: adhere.dev/v1alpha1
kind: JudgePanel
metadata: {name: p}
spec:
  aggregation: mean
  judges:
    - {name: j1, endpoint: {baseUrl: scripted, model: 'judge:seed=1,unsure=0.3,garble=0.3'}}
    - {name: j2, endpoint: {api: anthropic, baseUrl: scripted, model: 'judge:seed=2,noise=0.6'}}
---
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("conflict-judged")
    path = rollout(root)
    text = path.read_text().replace(
        "  benchmark: octobench-conflict\n", "  benchmark: octobench-conflict\n  judgePanel: p\n"
    )
    path.write_text(PANEL + text)
    summary = asyncio.run(execute(prepare(load_run_config([path]))))
    assert summary.failed == 0 and summary.ran == 20
    assert summary.scoring.attributions == 40
    return root / "runs" / "octobench-conflict"


def stored_attributions(run_dir: Path):
    """(model, conflict type, judge) → list of answers, read from the files themselves."""
    instances = {
        json.loads(line)["instance_id"]: json.loads(line)
        for line in (run_dir / "instances.jsonl").read_text().splitlines()
    }
    found = defaultdict(list)
    for path in sorted(run_dir.glob("trials/*/*/*/r0/conflict_verdicts.json")):
        model, _scaffold, instance = path.parts[-5:-2]
        kind = instances[instance]["metadata"]["conflict_type"]
        for judge, verdicts in json.loads(path.read_text()).items():
            (verdict,) = verdicts
            answer = verdict["details"].get("followed") if verdict["result"] != "error" else None
            found[(model, kind, judge)].append(answer)
    return found


def test_every_trial_is_attributed_by_every_judge(run_dir: Path):
    found = stored_attributions(run_dir)
    assert sum(len(v) for v in found.values()) == 40
    answers = {a for v in found.values() for a in v}
    assert {"A", "B"} <= answers  # the judges attribute runs to both sides
    assert answers - {"A", "B"}, "some replies are both/neither/unclear: undecided"


def test_table4_matches_a_hand_computation_from_the_stored_attributions(run_dir: Path):
    found = stored_attributions(run_dir)
    report = report_for(open_rollout_dir(run_dir))
    table = next(t for t in report.breakdowns if t.title == TABLE4_TITLE)
    kinds = ["SP vs UserQuery", "SP vs AgentsMd", "UserQuery vs AgentsMd"]
    assert table.header[0] == "model" and len(table.header) == 1 + 3 * len(kinds)
    rows = {r[0]: r[1:] for r in table.rows}
    assert set(rows) == {"follows-sp", "follows-user", "follows-doc", "hierarchy"}
    for model, cells in rows.items():
        for n, kind in enumerate(kinds):
            first_shares, undecided, total = [], 0, 0
            for judge in ("j1", "j2"):
                answers = found[(model, kind, judge)]
                a, b = answers.count("A"), answers.count("B")
                undecided += len(answers) - a - b
                total += len(answers)
                if a + b:
                    first_shares.append(a / (a + b))
            if len(first_shares) == 2:
                mean = statistics.fmean(first_shares)
                std = statistics.pstdev(first_shares) * 100  # the report rule: population std
                expected = [
                    f"{mean * 100:.1f}% ± {std:.1f}",
                    f"{(1 - mean) * 100:.1f}% ± {std:.1f}",
                ]
            elif first_shares:
                expected = [f"{first_shares[0] * 100:.1f}%", f"{(1 - first_shares[0]) * 100:.1f}%"]
            else:
                expected = ["–", "–"]
            assert cells[3 * n : 3 * n + 3] == [*expected, f"{undecided} of {total}"], (model, kind)


def test_agreement_with_side_checks_is_reported(run_dir: Path):
    report = report_for(open_rollout_dir(run_dir))
    table = next(t for t in report.breakdowns if "against the side checks" in t.title)
    assert [r[0] for r in table.rows] == ["j1", "j2"]
    assert all(r[1] == "20" for r in table.rows)
