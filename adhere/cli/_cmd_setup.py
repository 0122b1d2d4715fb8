"""``adhere setup <environment>``: install a suite's locked sandbox environment."""

from __future__ import annotations

from pathlib import Path

import click

from adhere.cli._app import main, out_console


@main.command("setup")
@click.argument("name")
@click.option(
    "--requirements",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A lock to install instead of the suite's own (a requirements file, all pinned).",
)
@click.option("--python", "python_version", help="Python version (default: the suite's).")
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    help="The environment cache (default: $ADHERE_ENV_HOME, else ~/.cache/adhere/envs).",
)
def setup(
    name: str, requirements: Path | None, python_version: str | None, home: Path | None
) -> None:
    """Install the sandbox environment NAME (e.g. vericode) so tests run with its libraries.

    Installs once with uv into the cache, in a directory named after the lock's hash;
    scoring then runs the tests of tasks that import third-party libraries with the
    environment's interpreter. Prints the interpreter's path.
    """
    import dataclasses

    from adhere.errors import SpecError
    from adhere.sandbox import install_environment
    from adhere.scoring import sandbox_environments

    known = sandbox_environments()
    env = known.get(name)
    if env is None:
        raise SpecError(f"unknown environment {name!r}; known: {', '.join(sorted(known))}",
                        field="NAME")  # fmt: skip
    if requirements is not None:
        env = dataclasses.replace(env, requirements=requirements)
    if python_version is not None:
        env = dataclasses.replace(env, python=python_version)
    before = env.interpreter(home)
    python = install_environment(env, home=home)
    state = "already installed" if before is not None else "installed"
    out_console.print(f"{name}: {state}: {python}", highlight=False, soft_wrap=True)
