"""Judge calls are recorded as they end: a run killed while scoring keeps the paid-for ones."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT, run_cli, wait_until
from tests.integration.test_scoring import write


def test_a_kill_while_judging_keeps_the_calls_made_and_resuming_adds_no_duplicate(
    tmp_path: Path,
) -> None:
    go = tmp_path / "go"
    held = f"judge:seed=1,hold_after=2,release={go}"
    judge = f"    - {{name: a, endpoint: {{baseUrl: scripted, model: '{held}'}}}}\n"
    path = write(tmp_path, judge)
    log = tmp_path / "runs" / "r" / "judge_calls.jsonl"

    def lines() -> list[str]:
        return log.read_text().splitlines() if log.is_file() else []

    proc = subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", "run", str(path), "--quiet", "--no-report"],
        cwd=ROOT,
        env={**os.environ, "ADHERE_WORK_DIR": str(tmp_path / "work")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: len(lines()) == 2, "2 judge calls recorded before the judge holds")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    kept = lines()
    assert len(kept) == 2 and all(json.loads(line)["ok"] for line in kept)

    go.touch()
    again = run_cli("score", str(tmp_path / "runs" / "r"), "--no-report", "--allow-incomplete")
    assert again.returncode == 0, again.stderr
    made = int(re.search(r"\((\d+) judge calls\)", again.stderr.replace("\n", " "))[1])
    assert made > 0
    after = lines()
    assert after[:2] == kept  # the killed pass's records stay, once
    assert len(after) == 2 + made  # one line per call of the second pass, no more
