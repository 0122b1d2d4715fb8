"""The batched Ruff executor: selector semantics, grouping, mapping back, failures, batching."""

import asyncio

from adhere.core import RuffRun
from adhere.judging.verifiers._ruff import Diagnostic, check_files
from adhere.scoring._ruff_batch import (
    check_requests,
    flatten_config,
    plan_groups,
    selector_matches,
)
from adhere.scoring._ruff_batcher import BatchSettings, RuffBatcher


def test_selector_semantics():
    assert selector_matches("E", "E501") and not selector_matches("E", "EM101")
    assert selector_matches("E5", "E501") and not selector_matches("E501", "E502")
    assert selector_matches("C90", "C901") and selector_matches("C", "C416")
    assert selector_matches("PL", "PLR0912") and not selector_matches("PLR", "PLW0120")
    assert selector_matches("ANN001", "ANN001") and not selector_matches("ANN", "A001")
    assert selector_matches("ALL", "D100")


def pylint(key, value):
    return {"lint": {"pylint": {key: value}}}


def test_groups_merge_compatible_settings_only():
    requests = [
        RuffRun(id="branches", code="", select=["PLR0912"], config=pylint("max-branches", 2)),
        RuffRun(id="statements", code="", select=["PLR0915"], config=pylint("max-statements", 6)),
        RuffRun(id="pep8", code="", select=["E", "W"]),
        RuffRun(id="length", code="", select=["E501"], config={"line-length": 79}),
        RuffRun(id="branches-3", code="", select=["PLR0912"], config=pylint("max-branches", 3)),
        RuffRun(id="preview", code="", select=["RUF059"], preview=True),
        RuffRun(id="other", code="", select=["X1"], config={"unknown-setting": 1}),
    ]  # fmt: skip
    groups = [(preview, settings, [requests[i].id for i in members])
              for preview, settings, members in plan_groups(requests)]  # fmt: skip
    assert groups[0][2] == ["branches", "statements", "pep8"]
    assert groups[0][1] == {"lint.pylint.max-branches": 2, "lint.pylint.max-statements": 6}
    assert (False, {"unknown-setting": 1}, ["other"]) in groups  # unknown: joins no other
    assert ["length", "branches-3"] in [g[2] for g in groups]  # E501 at 79 cannot join `E`
    assert (True, {}, ["preview"]) in groups
    assert flatten_config({"a": {"b": 1}, "c": 2}) == {"a.b": 1, "c": 2}


def test_mapping_back_and_shared_files():
    code = "import os\nx = 'a'\n"
    requests = [
        RuffRun(id="quotes", code=code, select=["Q"]),
        RuffRun(id="flakes", code=code, select=["F"]),
        RuffRun(id="clean", code="x = 1\n", select=["F"]),
        RuffRun(id="broken", code="def f(:\n", select=["Q"]),
    ]
    seen = []

    def recording(root, paths, options):
        seen.append(list(paths))
        return check_files(root, paths, options)

    found = {e.id: e for e in check_requests(requests, checker=recording)}
    assert seen == [["r0.py", "r1.py", "r2.py"]]  # one process, one file per distinct code
    assert [d["code"] for d in found["quotes"].data["diagnostics"]] == ["Q000"]
    assert [d["code"] for d in found["flakes"].data["diagnostics"]] == ["F401"]
    assert found["clean"].status == "pass" and found["clean"].data["count"] == 0
    assert found["broken"].status == "fail"
    assert found["broken"].data["diagnostics"][0]["code"] == "syntax-error"
    assert found["quotes"].detail.startswith("1 Ruff diagnostic(s); first: Q000 line 2")


def test_a_bad_request_spoils_only_itself():
    requests = [
        RuffRun(id="good", code="import os\n", select=["F"]),
        RuffRun(id="bad", code="import os\n", select=["NOPE999"]),
    ]
    found = {e.id: e for e in check_requests(requests)}
    assert found["good"].status == "fail" and found["good"].data["count"] == 1
    assert found["bad"].status == "error" and "ruff" in found["bad"].detail


def test_concurrent_calls_share_one_batch():
    calls = []

    def recording(root, paths, options):
        calls.append(len(paths))
        return check_files(root, paths, options)

    async def main():
        batcher = RuffBatcher(BatchSettings(window=0.05), checker=recording)
        jobs = [
            batcher([RuffRun(id="lint", code=f"import os\nx = {i}\n", select=["F"])])
            for i in range(30)
        ]
        results = await asyncio.gather(*jobs)
        return batcher, results

    batcher, results = asyncio.run(main())
    assert all(r["lint"].status == "fail" for r in results)  # ids collide across calls: fine
    assert batcher.batches == 1 and calls == [30]


def test_runner_failure_is_error_evidence():
    def broken(root, paths, options):
        raise RuntimeError("ruff exited with 2: boom")

    async def main():
        batcher = RuffBatcher(checker=broken)
        return await batcher([RuffRun(id="x", code="", select=["F"])])

    found = asyncio.run(main())
    assert found["x"].status == "error" and "boom" in found["x"].detail


def test_a_diagnostic_for_a_file_not_given_is_an_error_not_a_pass():
    def stray(root, paths, options):
        return [Diagnostic("elsewhere.py", 1, 1, "F401", "`os` imported but unused")]

    found = check_requests([RuffRun(id="x", code="x = 1\n", select=["F"])], checker=stray)
    assert found[0].status == "error" and "not given" in found[0].detail
