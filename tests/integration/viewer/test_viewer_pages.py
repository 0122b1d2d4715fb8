"""Trial pages of damaged or failed trials: a clear note on the page, never a crash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from adhere.artifacts import open_rollout_dir
from adhere.report import ViewerSite
from tests.integration.viewer.conftest import ViewerRun


def test_unreadable_or_missing_artifacts_are_named_on_the_page(
    viewer_run: ViewerRun, tmp_path: Path
) -> None:
    copy = tmp_path / "runs" / "r"
    shutil.copytree(viewer_run.store_dir, copy)
    results = sorted(copy.glob("trials/*/*/*/r*/result.json"))
    broken, no_calls, failed = (r.parent for r in results[:3])
    (broken / "trajectory.json").write_text("{not json")
    (no_calls / "calls.jsonl").unlink()
    result = json.loads((failed / "result.json").read_text())
    result["status"] = "error"
    result["error"] = "scaffold crashed: <script>window.__pwned = 1</script>"
    (failed / "result.json").write_text(json.dumps(result))
    site = ViewerSite(open_rollout_dir(copy))
    ids = {
        d: json.loads((d / "result.json").read_text())["trial_id"]
        for d in (broken, no_calls, failed)
    }

    page = site.render(f"trial-{ids[broken]}.html")
    assert page is not None
    assert "could not read trajectory.json" in page and "No trajectory is stored" in page

    files = site.files()
    assert f"calls-{ids[no_calls]}.html" not in files
    assert f"calls-{ids[broken]}.html" in files
    assert "calls-link" not in files[f"trial-{ids[no_calls]}.html"]

    failed_page = files[f"trial-{ids[failed]}.html"]
    assert "<script>window" not in failed_page
    assert "scaffold crashed: &lt;script&gt;window.__pwned = 1&lt;/script&gt;" in failed_page
    entry = next(e for e in site.index if e["trial"] == ids[failed])
    assert entry["verdict"] == "error"
