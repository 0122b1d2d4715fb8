"""The reference agent's Bash tool in the agent sandbox: the same attacks as the six
real CLIs face (tests.e2e.pipeline.test_agent_sandbox_attacks.py), driven by the scripted
``agent:run`` policy through ``adhere run``'s engine. The agent loop (and its model
calls) runs in the runner; each Bash command runs in bubblewrap without any network.
That the same script succeeds unsandboxed is shown by the e2e module's baseline test.
"""

import json
import re
import uuid
from pathlib import Path

from tests.e2e.pipeline.test_agent_sandbox_attacks import (
    ENV_NAME,
    LIMITS,
    PLANTED_ENV,
    PLANTED_FILE,
    OtherServer,
    attack_script,
    processes_with,
    tool_outputs,
)
from tests.e2e.pipeline.test_observed_runs import model, run, write_suite


def rollout(tmp_path: Path) -> Path:
    path = tmp_path / "rollout.yaml"
    path.write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n"
        "  benchmark: b\n  models:\n"
        + model("m", "agent:run,command=bash attack.sh", api="openai")
        + "  scaffolds: [reference]\n  maxRetries: 0\n  storage: file://./runs\n"
        + LIMITS
    )
    return path


async def attacked(tmp_path: Path, monkeypatch) -> tuple[str, list[int], int]:
    """Run the attacks once; the recorded tool output, surviving daemons, other-server hits."""
    monkeypatch.setenv(ENV_NAME, PLANTED_ENV)
    other = OtherServer()
    port = await other.start()
    daemon = f"4343.{uuid.uuid4().int % 10**6:06d}"
    try:
        write_suite(
            tmp_path,
            [{"instance_id": "attacks", "user_query": ["Run attack.sh.", "Run it again."]}],
            {"attack.sh": attack_script(tmp_path, tmp_path / "install", port, daemon)},
        )
        (tmp_path / "install").mkdir()
        prepared, summary = await run(rollout(tmp_path))
    finally:
        await other.stop()
    assert summary.ran == 1
    (trial,) = prepared.trials
    trajectory = prepared.store.read_trajectory(trial)
    assert trajectory is not None
    leftovers = processes_with(daemon)
    for path in (tmp_path / "runs").rglob("*"):
        if path.is_file():
            assert PLANTED_ENV.encode() not in path.read_bytes(), path
            assert PLANTED_FILE.encode() not in path.read_bytes(), path
    calls = prepared.store.read_calls(trial)
    asked = [c for c in calls if "attack.sh" in json.dumps(c.get("response") or {})]
    assert len(asked) >= 2, "both turns' tool calls are recorded"
    return tool_outputs(trajectory), leftovers, other.hits


async def test_the_reference_agent_s_bash_commands_are_contained(
    tmp_path: Path, monkeypatch
) -> None:
    output, leftovers, hits = await attacked(tmp_path, monkeypatch)
    for header in ("== read planted", "== environ", "== other server", "== end"):
        assert header in output  # what the agent tried is recorded
    for leak in (PLANTED_FILE, PLANTED_ENV, "[project]"):
        assert leak not in output
    assert not re.search(r"root:[^:\s]*:\d+:", output), "read /etc/shadow"
    for success in ("WROTE-OUTSIDE", "WROTE-INSTALL", "REACHED-OTHER", "HIT-OK"):
        assert success not in output
    assert int(output.split("processes seen: ")[1].split()[0]) < 20
    assert not (tmp_path / "outside" / "pwned").exists()
    assert hits == 0 and leftovers == []
    assert "dd big: exit 153" in output  # 128 + SIGXFSZ: cut at fileMb
    assert output.count("No space left on device") == 2  # /tmp and /dev/shm at tmpMb
    assert "grew by" in output or "gained" in output  # turn 2 stopped by the growth watch
