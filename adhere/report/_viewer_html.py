"""Small escaped HTML builders shared by the trial viewer's pages.

Everything a page shows from a run (transcripts, tool output, judge reasoning, check
ids) is untrusted: it goes through :func:`esc` (text and attribute values) or
:func:`json_script` (data for the page's script), never into markup as is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any
from urllib.parse import urlencode

from adhere.core import SourceSpan

__all__ = [
    "NO_ICON",
    "REPORT_PAGE",
    "ROLLOUT_PAGE",
    "TRIALS_PAGE",
    "calls_page_name",
    "check_anchor",
    "esc",
    "highlight",
    "json_script",
    "link",
    "page",
    "table",
    "trial_page_name",
    "trials_href",
]

NO_ICON = "<link rel='icon' href='data:,'>"
"""Keeps a browser from asking the server for a favicon the site does not have."""
REPORT_PAGE = "report.html"
ROLLOUT_PAGE = "rollout.html"
TRIALS_PAGE = "trials.html"

_STYLE = """
body{font-family:sans-serif;margin:1.5em;max-width:1200px;line-height:1.4}
table{border-collapse:collapse;margin-bottom:1.5em}
td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}
th{background:#f4f4f4}
nav{margin-bottom:1em}nav a{margin-right:1em}
.pass{color:#176f2c}.fail{color:#b00020;font-weight:bold}.error,.incomplete{color:#a15c00}
.disagree{background:#fff1c2}
.msg{border:1px solid #ddd;border-radius:4px;margin:.6em 0;padding:.4em .7em}
.msg:target{outline:3px solid #1a5fb4;background:#eef4ff}
.role{font-weight:bold;font-size:.85em;color:#555}
.msg pre,.box{white-space:pre-wrap;word-break:break-word;margin:.3em 0}
.user{background:#f7fbff}.assistant{background:#fbfbf7}.tool{background:#f6f6f6}
mark{padding:0 1px}
mark{background:#eee}mark.src-SP{background:#ffe08a}mark.src-UserQuery{background:#bde0ff}
mark.src-SystemReminder{background:#ffc9c9}mark.src-AgentsMd{background:#c9f2c9}
mark.src-SkillMd{background:#e6ccff}mark.src-Memory{background:#ffd9b3}
mark.src-ToolSchema{background:#d0d0d0}
details{margin:.3em 0}summary{cursor:pointer;color:#555}
tr:target{outline:3px solid #1a5fb4}
a.evidence{white-space:nowrap}
"""


def esc(value: object) -> str:
    """Text or an attribute value, escaped (quotes included)."""
    return escape(str(value), quote=True)


def json_script(element_id: str, data: Any) -> str:
    """Data for a page's script: JSON in a non-executed script element.

    ``<``, ``>`` and ``&`` are written as JSON escapes, so no string in the data can
    close the element or open another.
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def page(title: str, body: Iterable[str], *, script: str = "") -> str:
    """A whole page: head with the shared style, the body's parts, an optional script."""
    tail = f"<script>{script}</script>" if script else ""
    return (
        f"<!doctype html><html><head><meta charset='utf-8'>{NO_ICON}"
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{''.join(body)}{tail}</body></html>"
    )


def link(href: str, text: str, **attributes: str) -> str:
    """A link; ``class_`` gives the class attribute, other names their own."""
    names = {k: k.rstrip("_").replace("_", "-") for k in attributes}
    extra = "".join(f' {names[k]}="{esc(v)}"' for k, v in attributes.items())
    return f'<a href="{esc(href)}"{extra}>{esc(text)}</a>'


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *, raw: bool = False) -> str:
    """A table; cells are escaped unless ``raw`` (cells already built from escaped parts)."""

    def cell(value: str) -> str:
        return value if raw else esc(value)

    head = "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{head}{body}</table>"


def trial_page_name(trial_id: str) -> str:
    return f"trial-{_safe(trial_id)}.html"


def calls_page_name(trial_id: str) -> str:
    return f"calls-{_safe(trial_id)}.html"


def check_anchor(check_id: str) -> str:
    """The element id of a check's row on its trial page (any check id maps to a safe one)."""
    return "check-" + _safe(check_id)


def trials_href(filters: dict[str, str]) -> str:
    """The trial list filtered by the given fields (read by the list page's script)."""
    return f"{TRIALS_PAGE}?{urlencode(filters)}" if filters else TRIALS_PAGE


def _safe(name: str) -> str:
    """``name`` as a file name or element id: other characters as ``.<hex>.`` (one-to-one)."""
    return re.sub(r"[^A-Za-z0-9_-]", lambda m: f".{ord(m.group()):x}.", name)


def source_class(source: str) -> str:
    return "src-" + re.sub(r"[^A-Za-z0-9]", "_", source)


def highlight(text: str, spans: Sequence[SourceSpan]) -> str:
    """``text`` escaped, with each instruction-source span marked (source in the title).

    Overlapping spans split the text at every boundary; a piece covered by several
    spans names them all and takes the first one's colour.
    """
    cuts = {0, len(text)}
    for span in spans:
        cuts.update((min(span.start, len(text)), min(span.end, len(text))))
    bounds = sorted(cuts)
    out = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        piece = esc(text[start:end])
        covering = [s for s in spans if s.start <= start and end <= s.end and s.start < s.end]
        if not covering:
            out.append(piece)
            continue
        names = ", ".join(
            f"{s.source.value}: {s.label}" if s.label else s.source.value for s in covering
        )
        css = source_class(covering[0].source.value)
        out.append(f'<mark class="{css}" title="{esc(names)}">{piece}</mark>')
    return "".join(out)
