"""A small judged rollout for the trial viewer's tests, run once per module.

Two scripted models under the reference scaffold, three instances, a panel of two
scripted judges that disagree on some checks; the first instance's user query holds
markup that must show as text. ``adhere report`` has written the static pages.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from adhere.artifacts import RolloutStore, open_rollout_dir
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.helpers import run_cli
from tests.integration.test_scoring import write

INJECTED = (
    "Show me the first line of README.md. <script>window.__pwned = 1</script>"
    '<img src="x" onerror="window.__pwned = 2">'
)
JUDGES = (
    "    - {name: a, endpoint: {baseUrl: scripted, model: 'judge:seed=1'}}\n"
    "    - {name: b, endpoint: {api: anthropic, baseUrl: scripted,"
    " model: 'judge:seed=2,bias=0.4'}}\n"
)


@dataclass
class ViewerRun:
    root: Path
    store: RolloutStore
    store_dir: Path
    """The rollout's artifact directory."""
    report: Path
    """The report directory: report.html and the viewer's pages."""


@pytest.fixture(scope="module")
def viewer_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewerRun]:
    root = tmp_path_factory.mktemp("viewer")
    spec = write(root, JUDGES)
    rows = [json.loads(line) for line in (root / "instances.jsonl").read_text().splitlines()]
    rows[0]["user_query"] = [INJECTED]
    (root / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = asyncio.run(execute(prepare(load_run_config([spec]))))
    assert summary.ok == 6 and summary.scoring.errors == 0
    run_dir = root / "runs" / "r"
    done = run_cli("report", str(run_dir))
    assert done.returncode == 0, done.stderr
    yield ViewerRun(
        root=root, store=open_rollout_dir(run_dir), store_dir=run_dir, report=run_dir / "report"
    )
