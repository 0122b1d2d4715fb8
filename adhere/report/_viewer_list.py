"""The trial viewer's rollout pages: tables linked to trials, the trial list, failed checks.

The failed checks section is added to report.html.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adhere.metrics import Table
from adhere.report._document import Report
from adhere.report._viewer_html import (
    REPORT_PAGE,
    ROLLOUT_PAGE,
    TRIALS_PAGE,
    check_anchor,
    esc,
    json_script,
    link,
    page,
    trial_page_name,
    trials_href,
)

__all__ = ["FAILED_ROWS", "failed_checks_section", "rollout_page", "trials_page"]

FAILED_ROWS = 500
"""At most this many failed checks are listed in report.html (the trial list has all)."""

FILTERS = ("model", "scaffold", "category", "verdict", "judges disagree")
"""The trial list's filter controls (any other index field filters through the URL)."""


def _matches(entry: Mapping[str, Any], filters: Mapping[str, str]) -> bool:
    for key, value in filters.items():
        found = entry.get(key)
        if isinstance(found, list):
            if value not in found:
                return False
        elif found != value:
            return False
    return True


def rollout_page(report: Report, index: Sequence[Mapping[str, Any]]) -> str:
    """The report's tables, each row's cells a link to the trials behind them."""
    fields = {k for entry in index for k in entry}
    body = [
        _nav(),
        f"<h1>Rollout <code>{esc(report.rollout)}</code> — {esc(report.suite)}</h1>",
        f"<p>{link(TRIALS_PAGE, f'all {len(index)} trials')}; each table row links to "
        "the trials it counts.</p>",
    ]
    body += [f"<p>{esc(n)}</p>" for n in report.notes]
    for table in [report.summary, *report.paper, *report.breakdowns, *report.panel]:
        body.append(_linked_table(table, fields, index))
    return page(f"adhere rollout {report.rollout}", body)


def _linked_table(table: Table, fields: set[str], index: Sequence[Mapping[str, Any]]) -> str:
    """The table; each cell a link to the trials behind it (none when it names none).

    A column named after an index field (model, scaffold, category, source, …) filters
    by the row's value; a column headed by a scaffold (``claude-code ISR``) or a source
    (``User query``) narrows its own cells to it.
    """
    keys = [(i, h) for i, h in enumerate(table.header) if h in fields]
    columns = [_column_filter(h, index) if h not in fields else {} for h in table.header]
    out = [f"<h2>{esc(table.title)}</h2><table>"]
    out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in table.header) + "</tr>")
    for row in table.rows:
        filters = {h: row[i] for i, h in keys if i < len(row)}
        cells = []
        for column, value in enumerate(row):
            narrowed = {**filters, **columns[column]} if filters else {}
            count = sum(_matches(e, narrowed) for e in index) if narrowed else 0
            title = f"{count} trial(s)"
            cells.append(link(trials_href(narrowed), value, title=title) if count else esc(value))
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _column_filter(header: str, index: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    scaffolds = {str(e.get("scaffold")) for e in index}
    first = header.split(" ")[0]
    if first in scaffolds and len(scaffolds) > 1:
        return {"scaffold": first}
    sources = {_plain(s): s for e in index for s in e.get("source", [])}
    found = sources.get(_plain(header))
    return {"source": found} if found else {}


def _plain(label: str) -> str:
    return "".join(ch for ch in label.lower() if ch.isalnum())


def _nav() -> str:
    return (
        "<nav>"
        + link(REPORT_PAGE, "report")
        + link(ROLLOUT_PAGE, "rollout")
        + link(TRIALS_PAGE, "all trials")
        + "</nav>"
    )


_LIST_SCRIPT = """
(function () {
  var index = JSON.parse(document.getElementById('trial-index').textContent);
  var params = new URLSearchParams(window.location.search);
  var controls = %(filters)s;
  var form = document.getElementById('filters');
  controls.forEach(function (key) {
    var values = [];
    index.forEach(function (e) {
      if (e[key] !== undefined && values.indexOf(e[key]) < 0) { values.push(e[key]); }
    });
    values.sort();
    var label = document.createElement('label');
    label.textContent = key + ' ';
    var select = document.createElement('select');
    select.name = key;
    select.id = 'filter-' + key.replace(/ /g, '-');
    var any = document.createElement('option');
    any.value = ''; any.textContent = '(any)';
    select.appendChild(any);
    values.forEach(function (v) {
      var option = document.createElement('option');
      option.value = v; option.textContent = v;
      select.appendChild(option);
    });
    select.value = params.get(key) || '';
    select.addEventListener('change', function () {
      if (select.value) { params.set(key, select.value); } else { params.delete(key); }
      try { history.replaceState(null, '', '?' + params.toString()); } catch (e) { /* file: */ }
      render();
    });
    label.appendChild(select);
    form.appendChild(label);
    form.appendChild(document.createTextNode(' '));
  });
  function matches(entry) {
    var ok = true;
    params.forEach(function (value, key) {
      var found = entry[key];
      if (Array.isArray(found)) { if (found.indexOf(value) < 0) { ok = false; } }
      else if (found !== value) { ok = false; }
    });
    return ok;
  }
  function cell(row, text) {
    var td = document.createElement('td');
    td.textContent = text;
    row.appendChild(td);
    return td;
  }
  function render() {
    var body = document.getElementById('trial-rows');
    body.textContent = '';
    var shown = 0;
    index.forEach(function (e) {
      if (!matches(e)) { return; }
      shown += 1;
      var row = document.createElement('tr');
      var first = cell(row, '');
      var a = document.createElement('a');
      a.href = e.page; a.textContent = e.instance + ' r' + e.repeat;
      first.appendChild(a);
      cell(row, e.model); cell(row, e.scaffold); cell(row, e.category || '');
      var verdict = cell(row, e.verdict);
      verdict.className = e.verdict;
      var failed = cell(row, '');
      e.failed_links.forEach(function (pair, i) {
        if (i) { failed.appendChild(document.createTextNode(', ')); }
        var f = document.createElement('a');
        f.href = e.page + '#' + pair[1]; f.textContent = pair[0]; f.className = 'failed-check';
        failed.appendChild(f);
      });
      var disagree = cell(row, e.disagreed.join(', '));
      if (e.disagreed.length) { row.className = 'disagree'; }
      body.appendChild(row);
    });
    var extra = [];
    params.forEach(function (value, key) {
      if (controls.indexOf(key) < 0) { extra.push(key + ' = ' + value); }
    });
    document.getElementById('count').textContent = shown + ' of ' + index.length +
      ' trials' + (extra.length ? ' (also filtered by ' + extra.join(', ') + ')' : '');
  }
  render();
})();
"""


def trials_page(rollout: str, index: Sequence[Mapping[str, Any]]) -> str:
    """All trials in one table, filtered in the page (the URL's query presets the filters)."""
    entries = []
    for entry in index:
        page_name = trial_page_name(str(entry["trial"]))
        failed = [[c, check_anchor(c)] for c in entry["failed"]]
        entries.append({**entry, "page": page_name, "failed_links": failed})
    header = [
        "trial",
        "model",
        "scaffold",
        "category",
        "verdict",
        "failed checks",
        "judges disagree on",
    ]
    body = [
        _nav(),
        f"<h1>Trials of <code>{esc(rollout)}</code></h1>",
        "<form id='filters' onsubmit='return false'></form>",
        "<p id='count'></p>",
        "<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead>",
        "<tbody id='trial-rows'></tbody></table>",
        json_script("trial-index", entries),
    ]
    filters = "[" + ", ".join(f"'{f}'" for f in FILTERS) + "]"
    return page(f"adhere trials {rollout}", body, script=_LIST_SCRIPT % {"filters": filters})


def failed_checks_section(index: Sequence[Mapping[str, Any]], verdicts: Mapping[str, Any]) -> str:
    """Failed checks with links to their rows on the trial pages (for report.html).

    ``verdicts`` maps a trial id to ``{check id: (decided by, disagree)}``.
    """
    rows = []
    for entry in index:
        trial = str(entry["trial"])
        for check in entry["failed"]:
            decided, disagree = verdicts.get(trial, {}).get(check, ("", False))
            href = f"{trial_page_name(trial)}#{check_anchor(check)}"
            rows.append(
                [
                    link(href, check, class_="failed-check"),
                    esc(decided),
                    "<b>yes</b>" if disagree else "no",
                    esc(entry.get("model", "")),
                    esc(entry.get("scaffold", "")),
                    link(
                        trial_page_name(trial),
                        f"{entry.get('instance', '')} r{entry.get('repeat', '')}",
                    ),
                ]
            )
    shown = rows[:FAILED_ROWS]
    header = ["failed check", "decided by", "judges disagree", "model", "scaffold", "trial"]
    parts = [
        "<h2 id='trial-viewer'>Trial viewer</h2>",
        f"<p>{link(ROLLOUT_PAGE, 'Rollout page')} (every table row links to its trials) · "
        f"{link(TRIALS_PAGE, 'all trials')} (filter by model, scaffold, category, verdict, "
        "judges disagree).</p>",
        f"<h2 id='failed-checks'>Failed checks ({len(rows)})</h2>",
    ]
    if len(rows) > len(shown):
        parts.append(f"<p>The first {len(shown)}; the trial list has them all.</p>")
    if shown:
        parts.append(
            "<table class='failed'><tr>"
            + "".join(f"<th>{esc(h)}</th>" for h in header)
            + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in shown)
            + "</table>"
        )
    else:
        parts.append("<p>No check failed.</p>")
    return "".join(parts)
