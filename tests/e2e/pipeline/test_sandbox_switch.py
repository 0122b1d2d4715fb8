"""``sandbox: off`` and on, through ``adhere run`` with a real CLI: what the run and report say.

With the sandbox off the CLI runs unconfined, and the run header and the report (console,
Markdown, HTML, JSON) warn about it; with it on (the default) the header says the agents
run in the sandbox and the report has no warning. The CLI's one tool call runs ``ls /``,
which shows the host's top-level directories only when unconfined.
"""

import json
from pathlib import Path

import pytest

from tests.e2e.pipeline.test_observed_runs import model, write_suite
from tests.helpers import run_cli

pytestmark = pytest.mark.slow


def rollout(root: Path, extra: str) -> Path:
    path = root / "rollout.yaml"
    path.write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec:\n"
        "  benchmark: b\n  models:\n"
        + model("m", "agent:run,command=ls /")
        + "  scaffolds: [claude-code]\n  maxRetries: 0\n  storage: file://./runs\n"
        + extra
    )
    return path


@pytest.mark.parametrize("switch", ["off", "on"])
def test_the_run_and_report_say_whether_agents_were_confined(
    tmp_path: Path, scaffold_cache: Path, switch: str
) -> None:
    write_suite(tmp_path, [{"instance_id": "i", "user_query": ["List /."]}], {"a.txt": "a\n"})
    extra = "  sandbox: off\n" if switch == "off" else ""
    done = run_cli(
        "run",
        str(tmp_path / "benchmark.yaml"),
        str(rollout(tmp_path, extra)),
        "--quiet",
        "--allow-incomplete",
        env={"ADHERE_WORK_DIR": str(tmp_path / "work")},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    header = " ".join(done.stderr.split())
    report = (tmp_path / "runs" / "r" / "report" / "report.md").read_text()
    trajectory = next((tmp_path / "runs" / "r" / "trials").rglob("trajectory.json"))
    listing = "\n".join(
        m["content"] for m in json.loads(trajectory.read_text())["messages"] if m["role"] == "tool"
    )
    if switch == "off":
        assert "WARNING: sandbox: off — the agent CLIs (claude-code) run unconfined" in header
        assert "warning: this rollout ran with 'sandbox: off'" in " ".join(done.stdout.split())
        assert "WARNING: this rollout ran with 'sandbox: off'" in report
        assert "var" in listing.split()  # the host's /
    else:
        assert "WARNING" not in header and "WARNING" not in report
        assert "agent sandbox: bubblewrap" in header
        assert "var" not in listing.split() and "usr" in listing.split()
