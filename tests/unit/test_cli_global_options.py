"""Global options after the subcommand: ``adhere validate X -v`` as ``adhere -v validate X``."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from adhere.cli import main
from adhere.cli._app import hoist_global_options

EXAMPLE = Path(__file__).parents[2] / "examples" / "quickstart" / "rollout.yaml"


def test_verbose_flags_move_in_front_in_order_and_nothing_else_moves() -> None:
    args = ["run", "r.yaml", "-v", "--parallelism", "4", "--verbose", "-vv"]
    assert hoist_global_options(args) == [
        "-v",
        "--verbose",
        "-vv",
        "run",
        "r.yaml",
        "--parallelism",
        "4",
    ]
    assert hoist_global_options(["-v", "run", "x"]) == ["-v", "run", "x"]


def test_nothing_after_a_double_dash_is_taken() -> None:
    assert hoist_global_options(["run", "--", "-v"]) == ["run", "--", "-v"]
    assert hoist_global_options(["run", "-v", "--", "-v"]) == ["-v", "run", "--", "-v"]


def test_lookalikes_stay_where_they_are() -> None:
    args = ["run", "-vx", "--verbosity", "-V", "v"]
    assert hoist_global_options(args) == args


def test_a_subcommand_takes_v_after_its_arguments() -> None:
    runner = CliRunner()
    before = runner.invoke(main, ["-v", "validate", str(EXAMPLE)])
    after = runner.invoke(main, ["validate", str(EXAMPLE), "-v"])
    assert before.exit_code == 0, before.output
    assert after.exit_code == 0, after.output
    assert "No such option" not in after.output
