"""The trial viewer in headless Chromium: static pages from ``adhere report``.

From a failed check in report.html two real clicks reach the message its verdict
cites; every page loads without console errors; every link's file and #anchor
exist; transcripts are shown as text; a screenshot of each page kind is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.integration.viewer._chromium import Chromium
from tests.integration.viewer.conftest import INJECTED, ViewerRun


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Chromium]:
    chromium = Chromium(tmp_path / "profile")
    try:
        yield chromium
    finally:
        chromium.close()


def stored_trials(run: ViewerRun) -> dict[str, dict[str, object]]:
    """Per trial id, straight from the stored files: verdicts and judge verdicts."""
    out: dict[str, dict[str, object]] = {}
    for result in sorted(run.store_dir.glob("trials/*/*/*/r*/result.json")):
        trial_dir = result.parent
        trial_id = json.loads(result.read_text())["trial_id"]
        out[trial_id] = {
            "verdicts": json.loads((trial_dir / "verdicts.json").read_text()),
            "judges": json.loads((trial_dir / "judge_verdicts.json").read_text()),
            "trajectory": json.loads((trial_dir / "trajectory.json").read_text()),
        }
    return out


def test_two_clicks_from_a_failed_check_in_report_html_reach_its_evidence_message(
    viewer_run: ViewerRun, browser: Chromium, tmp_path: Path
) -> None:
    trials = stored_trials(viewer_run)
    # a judge-decided failure whose judges disagreed, with an evidence message
    wanted = [
        (tid, v)
        for tid, t in trials.items()
        for v in t["verdicts"]  # type: ignore[attr-defined]
        if v["result"] == "fail"
        and v["decided_by"].startswith("panel")
        and v["evidence"] is not None
        and len({j[v["check_id"]] for j in _judge_results(t).values()}) > 1
    ]
    assert wanted, "the fixture run should hold a failed, disputed judge check"
    trial_id, verdict = wanted[0]
    check = verdict["check_id"]
    report = viewer_run.report / "report.html"
    browser.goto(report.as_uri())
    selector = f"a.failed-check[href='trial-{trial_id}.html#check-{check}']"
    browser.click(selector, navigates=True)  # click 1: the failed check → its trial page
    assert browser.eval("location.pathname").endswith(f"trial-{trial_id}.html")
    assert browser.eval("document.querySelector(':target').id") == f"check-{check}"
    row = f"#check-{check}"
    assert browser.eval(f"document.querySelector('{row}').className") == "disagree"
    browser.click(f"{row} td:nth-child(7) a.evidence", navigates=False)  # click 2
    target = browser.eval(
        "(function(){var t=document.querySelector(':target');var r=t.getBoundingClientRect();"
        "return [t.id, t.className, r.top >= 0 && r.top < window.innerHeight,"
        " t.querySelector('pre.content').textContent];})()"
    )
    index = verdict["evidence"]
    message = trials[trial_id]["trajectory"]["messages"][index]  # type: ignore[index]
    assert target[0] == f"msg-{index}" and "msg" in target[1].split()
    assert target[2], "the evidence message is in view"
    assert target[3] == message["content"]
    assert browser.errors == []


def _judge_results(trial: dict[str, object]) -> dict[str, dict[str, str]]:
    judges = trial["judges"]
    assert isinstance(judges, dict)
    return {name: {v["check_id"]: v["result"] for v in vs} for name, vs in judges.items()}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name == "href" and value and tag == "a":
                self.hrefs.append(value)


def test_every_page_loads_clean_and_every_link_resolves(
    viewer_run: ViewerRun, browser: Chromium
) -> None:
    pages = sorted(viewer_run.report.glob("*.html"))
    kinds = {p.name.split("-")[0].removesuffix(".html") for p in pages}
    assert kinds == {"report", "rollout", "trials", "trial", "calls"}
    ids: dict[str, set[str]] = {}
    hrefs: dict[str, list[str]] = {}
    for path in pages:
        browser.goto(path.as_uri())
        # links and ids as the browser sees them (the trial list builds its rows in script)
        hrefs[path.name] = browser.eval(
            "Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))"
        )
        ids[path.name] = set(
            browser.eval("Array.from(document.querySelectorAll('[id]')).map(e => e.id)")
        )
        parsed = _Links()
        parsed.feed(path.read_text(encoding="utf-8"))
        assert parsed.ids <= ids[path.name]
        assert browser.errors == [], f"{path.name}: {browser.errors}"
    checked = 0
    for name, links in hrefs.items():
        assert links, f"{name} has no link"
        for href in links:
            parts = urlsplit(href)
            assert not parts.scheme and not parts.netloc, f"{name}: external link {href}"
            target = unquote(parts.path) or name
            assert target in ids, f"{name}: {href} names no page"
            if parts.fragment:
                assert unquote(parts.fragment) in ids[target], f"{name}: {href} names no element"
            checked += 1
    assert checked > 50


def test_markup_in_a_transcript_is_shown_as_text(viewer_run: ViewerRun, browser: Chromium) -> None:
    trials = stored_trials(viewer_run)
    injected = [
        tid
        for tid, t in trials.items()
        if t["trajectory"]["messages"][0]["content"] == INJECTED  # type: ignore[index]
    ]
    assert len(injected) == 2  # one per model
    for trial_id in injected:
        browser.goto((viewer_run.report / f"trial-{trial_id}.html").as_uri())
        shown = browser.eval("document.querySelector('#msg-0 pre.content').textContent")
        assert shown == INJECTED
        assert browser.eval("window.__pwned === undefined")
        assert browser.eval("document.querySelectorAll('#msg-0 script, #msg-0 img').length") == 0
    assert browser.errors == []


def test_the_trial_list_filters_as_the_stored_verdicts_say(
    viewer_run: ViewerRun, browser: Chromium
) -> None:
    trials = stored_trials(viewer_run)
    disputed = sum(
        1
        for t in trials.values()
        if any(
            len({r[c] for r in _judge_results(t).values() if r.get(c, "error") != "error"}) > 1
            for c in next(iter(_judge_results(t).values()))
        )
    )
    assert 0 < disputed < len(trials)
    # from the rollout page: the summary row of one model links to its trials
    browser.goto((viewer_run.report / "rollout.html").as_uri())
    browser.click("a[href='trials.html?model=emoji']", navigates=True)
    assert browser.eval("document.getElementById('count').textContent") == "3 of 6 trials"
    assert browser.eval("document.getElementById('filter-model').value") == "emoji"
    models = browser.eval(
        "Array.from(document.querySelectorAll('#trial-rows tr td:nth-child(2)'))"
        ".map(td => td.textContent)"
    )
    assert models == ["emoji"] * 3
    # a paper-layout cell (model × instruction source) narrows to its source
    stored = (viewer_run.store_dir / "instances.jsonl").read_text().splitlines()
    instances = [json.loads(line) for line in stored]
    with_uq = sum(any(c["source"] == "UserQuery" for c in i["checks"]) for i in instances)
    browser.goto((viewer_run.report / "rollout.html").as_uri())
    browser.click("a[href='trials.html?model=good&source=UserQuery']", navigates=True)
    assert browser.eval("document.getElementById('count').textContent") == (
        f"{with_uq} of 6 trials (also filtered by source = UserQuery)"
    )
    browser.goto((viewer_run.report / "trials.html").as_uri())
    browser.eval(
        "(function(){var s=document.getElementById('filter-judges-disagree');"
        "s.value='yes'; s.dispatchEvent(new Event('change'));})()"
    )
    count = browser.eval("document.getElementById('count').textContent")
    assert count == f"{disputed} of {len(trials)} trials"
    failing = sum(
        1
        for t in trials.values()
        if any(v["result"] == "fail" for v in t["verdicts"])  # type: ignore[attr-defined]
    )
    browser.goto((viewer_run.report / "trials.html").as_uri() + "?verdict=fail")
    assert browser.eval("document.getElementById('count').textContent") == (
        f"{failing} of {len(trials)} trials"
    )
    assert browser.errors == []


def test_a_screenshot_of_each_page_kind(viewer_run: ViewerRun, browser: Chromium, tmp_path: Path):
    shots = tmp_path / "shots"
    shots.mkdir()
    trial = sorted(viewer_run.report.glob("trial-*.html"))[0]
    calls = sorted(viewer_run.report.glob("calls-*.html"))[0]
    for kind, page in {
        "report": viewer_run.report / "report.html",
        "rollout": viewer_run.report / "rollout.html",
        "trials": viewer_run.report / "trials.html",
        "trial": trial,
        "calls": calls,
    }.items():
        browser.goto(page.as_uri())
        png = browser.screenshot(shots / f"{kind}.png")
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000, kind
    assert browser.errors == []
