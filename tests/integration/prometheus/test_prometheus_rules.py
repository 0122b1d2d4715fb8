"""The chart's alert rules checked and unit-tested by Prometheus' own promtool."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT

RULES = sorted((ROOT / "charts" / "adhere" / "rules").glob("*.yaml"))
RULE_TESTS = sorted(Path(__file__).parent.glob("*.test.yaml"))


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail(
            "`promtool` was not found on PATH. It comes with Debian's prometheus package "
            "(`apt-get install -y --no-install-recommends prometheus`; scripts/test.sh "
            "installs it).",
            pytrace=False,
        )
    return path


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [promtool(), *args], capture_output=True, text=True, cwd=cwd, timeout=60, check=False
    )


def test_there_are_rules_and_rule_tests() -> None:
    assert RULES and RULE_TESTS


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
def test_promtool_check_rules(path: Path) -> None:
    proc = run("check", "rules", str(path), cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


@pytest.mark.parametrize("path", RULE_TESTS, ids=lambda p: p.name)
def test_promtool_test_rules(path: Path) -> None:
    proc = run("test", "rules", path.name, cwd=path.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def test_every_alert_is_tested_firing_and_silent() -> None:
    alerts = {
        rule["alert"]
        for path in RULES
        for group in yaml.safe_load(path.read_text())["groups"]
        for rule in group["rules"]
        if "alert" in rule
    }
    fired: set[str] = set()
    silent: set[str] = set()
    for path in RULE_TESTS:
        for test in yaml.safe_load(path.read_text())["tests"]:
            for case in test.get("alert_rule_test", []):
                (fired if case.get("exp_alerts") else silent).add(case["alertname"])
    assert alerts == fired == silent
    assert {
        "AdhereComplianceRegression",
        "AdhereRolloutStalled",
        "AdhereJudgeErrorRateHigh",
        "AdhereProxyUpstreamErrors",
    } <= alerts


def test_a_broken_expectation_fails(tmp_path: Path) -> None:
    """The harness notices a wrong expectation (promtool is really comparing)."""
    original = RULE_TESTS[0]
    text = original.read_text().replace("severity: warning", "severity: critical", 1)
    broken = tmp_path / "broken.test.yaml"
    broken.write_text(text.replace("../../../charts", str(ROOT / "charts")))
    proc = run("test", "rules", broken.name, cwd=tmp_path)
    assert proc.returncode != 0 and "FAILED" in proc.stdout + proc.stderr
