"""A suite's sandbox environment: `adhere setup` installs a lock, the sandbox runs its Python.

The mechanism is tested with a one-library lock (tabulate, not in adhere's own
environment; a few hundred kilobytes, cached by uv after the first run) instead of
VeriCode's full ~170-package BigCodeBench lock, which is `adhere setup vericode`'s job.
Needs the package index on the first run.
"""

import asyncio
import sys
from pathlib import Path

import pytest

from adhere.core import ChatMessage, Trajectory
from adhere.sandbox import Environment
from adhere.scoring import register_environment, sandbox_environments, sandbox_evidence
from adhere.suites import get_suite
from adhere.suites.vericode import Selection, Task, TaskTests, selection_instances
from tests.helpers import run_cli

TASK = Task(
    id="table",
    prompt="Write render(rows) returning a plain-text table of rows (use tabulate).",
    entry_point="render",
    tests=TaskTests(
        mode="unittest",
        code=(
            "import unittest\nfrom solution import render\n\n"
            "class T(unittest.TestCase):\n"
            "    def test_render(self):\n"
            "        self.assertIn('1', render([[1, 2]]))\n"
        ),
    ),
    libs=["tabulate", "os"],
    source="bigcodebench",
)
CODE = "from tabulate import tabulate\n\n\ndef render(rows):\n    return tabulate(rows)\n"


@pytest.fixture
def small_env(tmp_path, monkeypatch):
    lock = tmp_path / "requirements.txt"
    lock.write_text("tabulate==0.9.0\n", encoding="utf-8")
    home = tmp_path / "envs"
    monkeypatch.setenv("ADHERE_ENV_HOME", str(home))
    mine = Environment("vericode", lock)
    previous = register_environment(mine)
    yield mine, home
    assert previous is not None
    register_environment(previous)


def _request(environment: str):
    [instance] = selection_instances(
        Selection(task=TASK, instructions=[]), ["single"], [0], environment=environment
    )
    trajectory = Trajectory(
        messages=[
            ChatMessage(role="user", content=instance.turns[0]),
            ChatMessage(role="assistant", content=f"```python\n{CODE}```"),
        ]
    )
    [request] = get_suite("vericode").evidence(instance, trajectory)
    return request


def test_setup_then_tests_run_with_the_environments_libraries(small_env: tuple) -> None:
    env, home = small_env
    request = _request("auto")
    assert request.environment == "vericode"
    missing = asyncio.run(sandbox_evidence(request))
    assert missing.status == "error" and "adhere setup vericode" in missing.detail

    lock = str(env.requirements)
    # the evaluator's own Python (the suite's default, 3.10, may have to be downloaded)
    proc = run_cli(
        "setup", "vericode", "--requirements", lock, "--python", sys.executable,
        "--home", str(home), timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "vericode: installed: " in proc.stdout
    assert env.interpreter(home) is not None and str(home) in proc.stdout
    again = run_cli("setup", "vericode", "--requirements", lock, "--home", str(home))
    assert "vericode: already installed" in again.stdout

    found = asyncio.run(sandbox_evidence(request))
    assert found.status == "pass", found.detail
    # the same code in the evaluator's own interpreter cannot import the library
    own = asyncio.run(sandbox_evidence(_request("none")))
    assert own.status != "pass" and "tabulate" in own.detail


def test_unknown_environments_and_names_are_errors(tmp_path: Path) -> None:
    request = _request("auto").model_copy(update={"environment": "nope"})
    found = asyncio.run(sandbox_evidence(request))
    assert found.status == "error" and "unknown sandbox environment 'nope'" in found.detail
    proc = run_cli("setup", "nope")
    assert proc.returncode != 0 and "unknown environment 'nope'" in proc.stderr
    assert "vericode" in sandbox_environments()
