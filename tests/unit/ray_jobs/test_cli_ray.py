"""``--ray [ADDRESS]`` on the command line (no Ray started: the address is refused first)."""

from pathlib import Path

from click.testing import CliRunner

from adhere.cli import main


def test_a_path_after_a_bare_ray_is_refused_as_an_address(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["score", "--ray", str(tmp_path)])
    assert result.exit_code == 2
    assert "is not a Ray address" in result.output and "--ray=ADDRESS" in result.output


def test_ray_options_are_documented() -> None:
    for command in ("score", "run"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert "--ray [ADDRESS]" in result.output
        assert "--judge-actors" in result.output and "--verify-actors" in result.output
