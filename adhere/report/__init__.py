"""Reports."""

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
from adhere.report._plot import line_plot_svg
from adhere.report._results import collect, report_for, scored_trial

__all__ = [
    "Report",
    "RichProgress",
    "breakdown_tables",
    "build_report",
    "collect",
    "compare_stores",
    "comparison_notes",
    "comparison_table",
    "conflict_tables",
    "line_plot_svg",
    "open_run",
    "panel_tables",
    "paper_console_tables",
    "render_comparison",
    "render_html",
    "render_markdown",
    "report_for",
    "report_table",
    "scored_trial",
]
