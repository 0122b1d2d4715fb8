"""Multi-step workflows built on runs: checklist generation, feedback correction, selection.

* :func:`generate_checklists` — checklists proposed by a model from stored reference
  rollouts, merged and written as an OctoBench-format YAML;
* :func:`plan_feedback` / :func:`run_feedback` / :func:`feedback_report` — failed
  checks fed back to the agent, the trials run again, ΔISR/ΔCSR reported;
* :func:`select_instructions` — VeriCode instruction selection per task, by a model or
  by seed.
"""

from adhere.workflows._checkgen import CheckgenSettings, InstanceOutcome, generate_checklists
from adhere.workflows._feedback import plan_feedback
from adhere.workflows._feedback_report import feedback_report, rich_tables, write_markdown
from adhere.workflows._feedback_run import run_feedback
from adhere.workflows._vericode import load_elo, load_scores, select_instructions, write_selections

__all__ = [
    "CheckgenSettings",
    "InstanceOutcome",
    "feedback_report",
    "generate_checklists",
    "load_elo",
    "load_scores",
    "plan_feedback",
    "rich_tables",
    "run_feedback",
    "select_instructions",
    "write_markdown",
    "write_selections",
]
