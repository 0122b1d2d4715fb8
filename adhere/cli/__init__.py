"""The ``adhere`` command line (``main``); each ``_cmd_*`` module adds its commands."""

from adhere.cli import (
    _cmd_analyze,
    _cmd_cluster,
    _cmd_export,
    _cmd_generate,
    _cmd_import,
    _cmd_run,
    _cmd_score,
    _cmd_serve,
    _cmd_setup,
    _cmd_tools,
    _cmd_view,
)
from adhere.cli._app import main

__all__ = ["main"]

_COMMANDS = (
    _cmd_analyze,
    _cmd_cluster,
    _cmd_export,
    _cmd_generate,
    _cmd_import,
    _cmd_run,
    _cmd_score,
    _cmd_serve,
    _cmd_setup,
    _cmd_tools,
    _cmd_view,
)
"""Imported for their side effect: registering commands on :data:`main`."""
