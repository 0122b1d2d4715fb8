"""The trial viewer: a rollout's report linked down to every trial, check and message.

:class:`ViewerSite` builds the pages from a rollout's store — ``report.html`` with a
failed-checks section, ``rollout.html`` (the report's tables, each row a link to its
trials), ``trials.html`` (every trial, filtered in the page), one ``trial-<id>.html``
per trial and its ``calls-<id>.html`` (the raw call log). ``adhere report`` writes
them as static files beside report.html (:meth:`ViewerSite.files`); ``adhere view``
serves them on 127.0.0.1 (:func:`make_server`), building a trial's page when asked.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from adhere.artifacts import RolloutStore, StoredTrial
from adhere.report._collect import collect
from adhere.report._compare import open_run
from adhere.report._document import Report, render_html
from adhere.report._results import report_for
from adhere.report._viewer_data import disagreements, index_entry, load_trial
from adhere.report._viewer_html import (
    NO_ICON,
    REPORT_PAGE,
    ROLLOUT_PAGE,
    TRIALS_PAGE,
    calls_page_name,
    trial_page_name,
)
from adhere.report._viewer_list import failed_checks_section, rollout_page, trials_page
from adhere.report._viewer_trial import calls_page, trial_page

__all__ = ["ViewerSite", "make_server", "open_run_ref"]

_POLICY = "default-src 'self' 'unsafe-inline'; img-src 'self' data:"
"""The pages' own inline style and script only; nothing fetched from elsewhere."""
_TRIAL = re.compile(r"^(trial|calls)-([0-9a-f]+)\.html$")


def open_run_ref(ref: str) -> RolloutStore:
    """A rollout's store from its directory, its rollout YAML or a store URI ending in it.

    (``s3://bucket/prefix/<rollout>?endpoint_url=…``, ``file:///…/<rollout>``); the
    same forms as :func:`~adhere.report.open_run`.
    """
    return open_run(ref)


class ViewerSite:
    """Every page of one rollout's trial viewer, by file name."""

    def __init__(
        self, store: RolloutStore, report: Report | None = None, report_html: str | None = None
    ) -> None:
        self.store = store
        self.report = report if report is not None else report_for(store)
        collected = collect(store)
        self.instances = collected.instances
        self.stored: dict[str, StoredTrial] = {s.result.trial.id: s for s in store.iter_trials()}
        self.index: list[dict[str, Any]] = []
        decided: dict[str, dict[str, tuple[str, bool]]] = {}
        for scored in collected.trials:
            trial_id = str(scored.keys["trial"])
            stored = self.stored.get(trial_id)
            judged = store.read_judge_verdicts(stored.result.trial) if stored else {}
            instance = self.instances.get(str(scored.keys["instance"]))
            self.index.append(index_entry(scored, instance, judged))
            disagree = disagreements(judged)
            decided[trial_id] = {
                v.check_id: (v.decided_by, v.check_id in disagree) for v in scored.verdicts
            }
        html = report_html if report_html is not None else render_html(self.report)
        section = failed_checks_section(self.index, decided)
        html = html.replace("<head>", "<head>" + NO_ICON, 1)
        if "</body>" in html:
            html = html.replace("</body>", section + "</body>", 1)
        else:
            html += section
        self.report_html = html

    def names(self) -> list[str]:
        """Every page's file name."""
        names = [REPORT_PAGE, ROLLOUT_PAGE, TRIALS_PAGE]
        names += [trial_page_name(str(e["trial"])) for e in self.index]
        return names

    def render(self, name: str) -> str | None:
        """The page of that name, or ``None`` when there is none."""
        if name == REPORT_PAGE:
            return self.report_html
        if name == ROLLOUT_PAGE:
            return rollout_page(self.report, self.index)
        if name == TRIALS_PAGE:
            return trials_page(self.report.rollout, self.index)
        match = _TRIAL.match(name)
        stored = self.stored.get(match.group(2)) if match else None
        if match is None or stored is None:
            return None
        data = load_trial(self.store, stored, self.instances)
        return trial_page(data) if match.group(1) == "trial" else calls_page(data)

    def files(self) -> dict[str, str]:
        """Every page as a static file (a trial's call log page when its calls are stored)."""
        out = {
            REPORT_PAGE: self.report_html,
            ROLLOUT_PAGE: rollout_page(self.report, self.index),
            TRIALS_PAGE: trials_page(self.report.rollout, self.index),
        }
        for entry in self.index:
            stored = self.stored.get(str(entry["trial"]))
            if stored is None:
                continue
            data = load_trial(self.store, stored, self.instances)
            out[trial_page_name(data.result.trial.id)] = trial_page(data)
            if data.calls is not None:
                out[calls_page_name(data.result.trial.id)] = calls_page(data)
        return out


def make_server(site: ViewerSite, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server of the site's pages (``/`` is report.html); not yet serving."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            name = urlsplit(self.path).path.lstrip("/") or REPORT_PAGE
            body = site.render(name) if "/" not in name else None
            if body is None:
                self._send(HTTPStatus.NOT_FOUND, f"no page {name}", "text/plain")
                return
            self._send(HTTPStatus.OK, body, "text/html")

        def _send(self, status: HTTPStatus, text: str, kind: str) -> None:
            data = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Content-Security-Policy", _POLICY)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return  # quiet: the command prints the URL, not every request

    return ThreadingHTTPServer((host, port), Handler)


def write_site(site: ViewerSite, out: Path) -> list[Path]:
    """Write every page into ``out`` (for tests and tools); the written paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in site.files().items():
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    return written
