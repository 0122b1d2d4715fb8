"""OctoBench-Conflict through real agent CLIs: each policy follows its side under each CLI.

Claude Code shows CLAUDE.md in a ``<system-reminder>``, Droid shows AGENTS.md in its
first user message: the scripted policies must find the project doc in both, and the
verifiers must decide the side checks from what the proxy recorded.
"""

import asyncio
from pathlib import Path

from adhere.artifacts import open_rollout_dir
from adhere.metrics import followed
from adhere.report._results import collect
from adhere.runner import execute, prepare
from adhere.spec import load_run_config

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "octobench-conflict"
SOURCE = {"sp": "SP", "user": "UserQuery", "doc": "AgentsMd"}
ORDERS = {"follows-doc": ["doc"], "hierarchy": ["sp", "doc", "user"]}


def test_policies_follow_their_side_under_claude_code_and_droid(tmp_path: Path, scaffold_cache):
    rollout = (SAMPLE / "rollout.yaml").read_text()
    rollout = rollout.replace("[claude-code, kilo, droid, reference]", "[claude-code, droid]")
    rollout = rollout.replace("storage: file://../../runs", f"storage: file://{tmp_path}")
    kept = [
        block
        for block in rollout.split("    - name: ")
        if not block.startswith(("follows-sp", "follows-user"))
    ]
    rollout = "    - name: ".join(kept)
    bench = (SAMPLE / "benchmark.yaml").read_text()
    bench = bench.replace("path: instances.jsonl", f"path: {SAMPLE / 'instances.jsonl'}")
    path = tmp_path / "rollout.yaml"
    path.write_text(bench + "---\n" + rollout)
    summary = asyncio.run(execute(prepare(load_run_config([path]))))
    assert summary.failed == 0 and summary.ran == 20

    runs = collect(open_rollout_dir(tmp_path / "octobench-conflict")).conflicts
    assert len(runs) == 20
    for run in runs:
        sides = [side["source"] for side in run.conflict["sides"]]
        order = [SOURCE[s] for s in ORDERS[run.keys["model"]]]
        obeyed = next((s for s in order if s in sides), None)
        where = (run.keys["model"], run.keys["scaffold"], run.conflict["scenario"])
        if obeyed is not None:
            assert followed(run) == ("first" if obeyed == sides[0] else "second"), where
        else:
            assert followed(run) in ("first", "second", "neither"), where
