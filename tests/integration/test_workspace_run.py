"""A trial on a workspace copied from a directory: binaries and .git are not "changes"."""

import asyncio
import subprocess
from pathlib import Path

from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.e2e.pipeline.test_observed_runs import model, write_rollout, write_suite


def test_only_what_the_agent_wrote_counts_as_changed(tmp_path: Path) -> None:
    write_suite(
        tmp_path,
        [{"instance_id": "edit", "user_query": ["Add a line to notes.md."]}],
        {"README.md": "# demo\n", "notes.md": "first\n"},
    )
    ws = tmp_path / "ws"
    (ws / "logo.png").write_bytes(b"\x89PNG\x00\x01binary")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    path = write_rollout(tmp_path, model("m", "agent:edit"), "[reference]", parallelism=1)

    prepared = prepare(load_run_config([path]))
    summary = asyncio.run(execute(prepared, retry_backoff_seconds=0.01))
    assert summary.ok == 1, summary.errors
    traj = prepared.store.read_trajectory(prepared.trials[0])
    assert traj is not None
    assert set(traj.files) == {"notes.md"}  # edited; the binary and .git are not changes
    assert traj.files["notes.md"] != "first\n"
    assert traj.meta["deleted_files"] == []
