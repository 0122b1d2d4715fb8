"""Reports of stored rollouts: collect, tabulate, compare, render.

:func:`collect` reads a rollout's finished trials and verdicts; :func:`report_for`
builds the :class:`Report` (summary, breakdowns, the OctoBench paper's table
layouts, judge-panel agreement, OctoBench-Conflict tables, plots); it renders to the
console (rich tables), Markdown and HTML. :func:`compare_stores` sets a candidate
rollout against a baseline (ΔISR/ΔCSR with the regression statistics of
:mod:`adhere.metrics`).
"""

from adhere.report._compare import (
    compare_stores,
    comparison_notes,
    comparison_table,
    open_run,
    render_comparison,
)
from adhere.report._conflict import conflict_tables
from adhere.report._console import (
    RichProgress,
    breakdown_tables,
    panel_tables,
    paper_console_tables,
    report_table,
)
from adhere.report._document import Report, build_report, render_html, render_markdown
from adhere.report._json import JSON_FORMAT, comparison_json, jsonable, report_json, table_json
from adhere.report._plot import line_plot_svg
from adhere.report._results import collect, report_for, scored_trial
from adhere.report._viewer import ViewerSite, make_server, open_run_ref, write_site

__all__ = [
    "JSON_FORMAT",
    "Report",
    "RichProgress",
    "ViewerSite",
    "breakdown_tables",
    "build_report",
    "collect",
    "compare_stores",
    "comparison_json",
    "comparison_notes",
    "comparison_table",
    "conflict_tables",
    "jsonable",
    "line_plot_svg",
    "make_server",
    "open_run",
    "open_run_ref",
    "panel_tables",
    "paper_console_tables",
    "render_comparison",
    "render_html",
    "render_markdown",
    "report_for",
    "report_json",
    "report_table",
    "scored_trial",
    "table_json",
    "write_site",
]
