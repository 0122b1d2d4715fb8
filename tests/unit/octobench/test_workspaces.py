"""Workspaces given as files: binaries, modes and .git kept; no path leaves its root."""

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.runner._workspace import copy_layer, trial_workspace
from adhere.suites.octobench import load_octobench

CHECKLIST = {
    "SP": {
        "description": "",
        "checks": [{"check_id": "a", "description": "x", "check_type": "compliance"}],
    }
}
BINARY = bytes(range(256)) * 4


def write_rows(path: Path, *workspaces) -> Path:
    rows = [
        {
            "instance_id": f"i{n}",
            "user_query": ["go"],
            "category": "SP",
            "checklist": CHECKLIST,
            "workspace": ws,
        }
        for n, ws in enumerate(workspaces)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "GIT_CONFIG_GLOBAL": "/dev/null",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a binary file, an executable script, a link inside it and a git history."""
    root = tmp_path / "bench" / "ws" / "project"
    (root / "bin").mkdir(parents=True)
    (root / "logo.png").write_bytes(BINARY)
    script = root / "bin" / "run.sh"
    script.write_text("#!/bin/sh\necho ok\n")
    script.chmod(0o755)
    (root / "README.md").write_text("# project\n")
    (root / "docs").symlink_to("bin")  # a link to a directory inside the workspace
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


async def test_a_directory_workspace_is_copied_as_it_is(tmp_path: Path, project: Path) -> None:
    (instance,) = load_octobench(write_rows(tmp_path / "bench" / "rows.jsonl", "ws/project"))
    ws = instance.workspace
    assert ws.layers == [str(project.resolve())]
    assert set(ws.files) == {"README.md", "bin/run.sh"}  # text only: no binary, no .git, no link
    async with trial_workspace(tmp_path / "work", "t1", instance) as (work, _home):
        assert (work / "logo.png").read_bytes() == BINARY
        assert stat.S_IMODE((work / "bin" / "run.sh").stat().st_mode) == 0o755
        assert (work / "docs").is_symlink() and os.readlink(work / "docs") == "bin"
        assert git(work, "log", "--format=%s") == "first\n"
        assert git(work, "status", "--porcelain") == ""  # the copy is the committed tree
    assert not (tmp_path / "work" / "t1").exists()


def test_inline_paths_stay_inside_the_workspace(tmp_path: Path) -> None:
    for bad in ("../escape.txt", "/etc/passwd", "a/../../b"):
        path = write_rows(tmp_path / "rows.jsonl", {"ok.txt": "x", bad: "y"})
        with pytest.raises(SpecError) as caught:
            load_octobench(path)
        assert caught.value.file == f"{path}:1"
        assert caught.value.field == f"workspace.{bad}"
        assert "leaves the workspace" in caught.value.message


def test_a_workspace_directory_outside_the_benchmark_directory_is_an_error(
    tmp_path: Path, project: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    bench = tmp_path / "bench"
    (bench / "sneaky").symlink_to(outside)  # inside by name, outside once followed
    cases = [("../elsewhere", "workspace"), (str(outside), "workspace"), ("sneaky", "workspace")]
    cases.append((["ws/project", "../elsewhere"], "workspace[1]"))
    for given, field in cases:
        path = write_rows(bench / "rows.jsonl", given)
        with pytest.raises(SpecError) as caught:
            load_octobench(path)
        assert (caught.value.file, caught.value.field) == (f"{path}:1", field), given
        assert "outside the benchmark directory" in caught.value.message


def test_a_link_out_of_a_workspace_directory_is_an_error_never_followed(
    tmp_path: Path, project: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read\n")
    (project / "leak.txt").symlink_to(secret)
    path = write_rows(tmp_path / "bench" / "rows.jsonl", "ws/project")
    with pytest.raises(SpecError) as caught:
        load_octobench(path)
    assert (caught.value.file, caught.value.field) == (f"{path}:1", "workspace")
    assert "'leak.txt'" in caught.value.message and "symbolic link" in caught.value.message


def test_an_instance_id_cannot_climb_out_of_the_workspaces_option(tmp_path: Path) -> None:
    from adhere.spec import BenchmarkSpec
    from adhere.suites import get_suite

    (tmp_path / "ws" / "fine").mkdir(parents=True)
    (tmp_path / "ws" / "fine" / "a.txt").write_text("a\n")
    (tmp_path / "outside").mkdir()
    rows = [
        {"instance_id": "fine", "user_query": ["go"], "category": "SP", "checklist": CHECKLIST},
        {
            "instance_id": "../outside",
            "user_query": ["go"],
            "category": "SP",
            "checklist": CHECKLIST,
        },
    ]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = BenchmarkSpec.model_validate({"suite": "octobench", "source": {"path": "rows.jsonl"}})
    with pytest.raises(SpecError) as caught:
        get_suite("octobench", workspaces="ws").load(spec, base_dir=tmp_path)
    assert caught.value.field == "instance_id"
    assert caught.value.file.endswith("rows.jsonl:2")
    (tmp_path / "rows.jsonl").write_text(json.dumps(rows[0]) + "\n")
    (fine,) = get_suite("octobench", workspaces="ws").load(spec, base_dir=tmp_path)
    assert fine.workspace.layers == [str((tmp_path / "ws" / "fine").resolve())]
    assert fine.workspace.files == {"a.txt": "a\n"}


def test_later_layers_replace_earlier_entries_without_writing_through_links(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("untouched\n")
    first, second, work = tmp_path / "first", tmp_path / "second", tmp_path / "work"
    for d in (first, second, work):
        d.mkdir()
    (first / "a.txt").symlink_to(target)  # (the loader refuses such a link; copy_layer copes)
    (first / "d").mkdir()
    (second / "a.txt").write_text("from the second layer\n")
    (second / "d").write_text("now a file\n")
    copy_layer(first, work)
    copy_layer(second, work)
    assert not (work / "a.txt").is_symlink()
    assert (work / "a.txt").read_text() == "from the second layer\n"
    assert (work / "d").read_text() == "now a file\n"
    assert target.read_text() == "untouched\n"
