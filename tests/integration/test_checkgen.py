"""``adhere generate checklist`` end to end: a stored rollout in, a reviewable checklist out.

Reference rollouts come from the real runner (reference scaffold, scripted agent
models, the recording proxy); the checklist writer is the scripted ``checkgen`` policy
(a test double) served by the scripted policy server the command starts itself.
"""

import asyncio
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from adhere.artifacts import open_rollout_dir
from adhere.cli import main
from adhere.errors import SpecError
from adhere.judging._checkgen_categories import category_for_source
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.suites.octobench import load_octobench
from adhere.workflows._checkgen import (
    CheckgenSettings,
    InstanceOutcome,
    find_rollouts,
    generate_checklists,
    load_checklist_file,
)
from tests.helpers import run_cli

SYSTEM = (
    "You are the inventory team's assistant. Never use emoji. Always answer in English. "
    "Only change files that the task names."
)
CLAUDE_MD = (
    "# Project rules\n\n"
    "- You must run `python -m pytest -q` after every code change.\n"
    "- Do not reformat code you did not change.\n"
)
PLACEHOLDER = {
    "SP": {
        "description": "",
        "checks": [
            {
                "check_id": "placeholder",
                "description": "To be generated.",
                "check_type": "compliance",
            }
        ],
    }
}


def make_rollout(root: Path) -> Path:
    """Two instances × two scripted agents × two repeats on the reference scaffold."""
    (root / "ws").mkdir()
    (root / "ws" / "README.md").write_text("# inventory\n")
    (root / "ws" / "CLAUDE.md").write_text(CLAUDE_MD)
    rows = [
        {
            "instance_id": "rename",
            "user_query": ["Show me the first line of README.md. Use the Read tool for it."],
            "system_prompt": SYSTEM,
            "category": "Claude.md",
            "workspace": ["ws"],
            "checklist": PLACEHOLDER,
        },
        {
            "instance_id": "plain",
            "user_query": ["Explain what README.md is for."],
            "system_prompt": "Keep every answer under 50 words.",
            "category": "SP",
            "workspace": ["ws"],
            "checklist": PLACEHOLDER,
        },
    ]
    (root / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: octobench, source: {path: instances.jsonl}}\n"
    )
    path = root / "rollout.yaml"
    path.write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: ref}\nspec:\n"
        "  benchmark: b\n  models:\n"
        "    - {name: good, endpoint: {api: anthropic, baseUrl: scripted, model: 'agent:read'}}\n"
        "    - {name: emoji, endpoint: {api: anthropic, baseUrl: scripted,"
        " model: 'agent:read,emoji'}}\n"
        "  scaffolds: [reference]\n  repeats: 2\n  parallelism: 4\n  storage: file://./runs\n"
    )
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("checkgen")
    summary = asyncio.run(execute(prepare(load_run_config([make_rollout(root)]))))
    assert summary.ok == 8
    return root / "runs" / "ref"


def support_comments(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"# support (\d+)/(\d+)", text)]


def test_one_instance_gives_a_checklist_the_loader_accepts(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "rename.yaml"
    result = run_cli(
        "generate", "checklist", str(run_dir), "--instance", "rename",
        "--model", "checkgen:seed=1", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "[1/1] rename: 4 rollouts" in result.stderr
    assert "1 checklist(s) written, 0 failed" in result.stderr
    text = out.read_text()
    checks = load_checklist_file(out)  # through the OctoBench loader's own validation
    ids = [c.id for c in checks]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[A-Z]+-\d\d", i) for i in ids)
    assert all(c.description.startswith("Check whether ") for c in checks)
    # Categories: exactly those of the instruction sources the rollouts saw (and the
    # policy found instruction sentences in): system prompt, user query, CLAUDE.md, tools.
    store = open_rollout_dir(run_dir)
    present = {
        category.name
        for rollout in find_rollouts([store], "rename")
        for span in rollout.trajectory.sources
        if (category := category_for_source(span.source)) is not None
    }
    data = yaml.safe_load(text)
    assert list(data) == ["SP", "User query", "Agents.md", "Tool schema"]
    assert set(data) <= present
    # Every instruction sentence of the instance appears once, whatever the paraphrase.
    descriptions = " ".join(c.description for c in checks)
    for sentence in ("Never use emoji.", "Always answer in English.", "Use the Read tool"):
        assert descriptions.count(sentence) == 1, sentence
    assert descriptions.count("Do not reformat code you did not change.") == 1
    # Support counts: one comment per check, out of the 4 rollouts, some below 4.
    supports = support_comments(text)
    assert len(supports) == len(checks)
    assert {n for _, n in supports} == {4}
    assert all(1 <= s <= 4 for s, _ in supports) and any(s < 4 for s, _ in supports)
    assert "phrasings merged" in text and "#   - ref/emoji/reference/rename/r1" in text
    # The generated checklist drops into an instance line and loads as a benchmark.
    line = {
        "instance_id": "rename",
        "user_query": ["Show me the first line of README.md."],
        "category": "SP",
        "checklist": data,
    }
    jsonl = tmp_path / "generated.jsonl"
    jsonl.write_text(json.dumps(line) + "\n")
    (instance,) = load_octobench(jsonl)
    assert [c.id for c in instance.checks] == ids
    # An existing file is kept (it may hold a reviewer's edits) unless forced; the same
    # input gives the same file, ids included.
    again = CliRunner().invoke(
        main,
        ["generate", "checklist", str(run_dir), "--instance", "rename",
         "--model", "checkgen:seed=1", "--out", str(out)],
    )  # fmt: skip
    assert again.exit_code == 1 and "use --force to overwrite" in again.stderr
    assert out.read_text() == text
    (forced,) = asyncio.run(
        generate_checklists(
            [run_dir],
            model="checkgen:seed=1",
            out=out,
            instances=["rename"],
            settings=CheckgenSettings(force=True),
        )
    )
    assert forced.error is None and out.read_text() == text


async def test_max_min_support_and_an_endpoint_file_with_re_asks(
    run_dir: Path, tmp_path: Path
) -> None:
    endpoint = tmp_path / "writer.yaml"
    endpoint.write_text(
        "endpoint: {api: anthropic, baseUrl: scripted, model: 'checkgen:seed=2,garble=0.5'}\n"
    )
    out = tmp_path / "plain.yaml"
    (outcome,) = await generate_checklists(
        [run_dir],
        model=str(endpoint),
        out=out,
        instances=["plain"],
        settings=CheckgenSettings(max_rollouts=3, min_support=2, max_attempts=8),
    )
    assert outcome.error is None and outcome.rollouts == 3 and outcome.path == out
    text = out.read_text()
    assert "# Model: checkgen:seed=2,garble=0.5" in text
    # repeat 0 of both models first, then a second repeat
    assert re.findall(r"#   - (\S+)", text) == [
        "ref/emoji/reference/plain/r0",
        "ref/emoji/reference/plain/r1",
        "ref/good/reference/plain/r0",
    ]
    assert all(s >= 2 and n == 3 for s, n in support_comments(text))
    assert "min support 2" in text
    assert load_checklist_file(out)


async def test_all_instances_of_several_runs_one_file_each(run_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "ref"  # another run of the same name
    shutil.copytree(run_dir, copy)
    out = tmp_path / "checklists"
    seen: list[InstanceOutcome] = []
    outcomes = await generate_checklists(
        [run_dir, copy, run_dir],  # a directory given twice counts once
        model="checkgen:seed=4",
        out=out,
        on_instance=seen.append,
    )
    assert (
        sorted(o.instance for o in seen)
        == ["plain", "rename"]
        == sorted(o.instance for o in outcomes)
    )
    assert sorted(p.name for p in out.iterdir()) == ["plain.yaml", "rename.yaml"]
    for outcome in outcomes:
        assert outcome.error is None and outcome.rollouts == 8
        assert outcome.checklist is not None and len(outcome.checklist.rollouts) == 8
        assert any(label.startswith(f"{copy}/") for label in outcome.checklist.rollouts)
        assert outcome.path is not None and load_checklist_file(outcome.path)


async def test_unusable_replies_fail_the_instance_naming_the_rollout(
    run_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "x.yaml"
    (outcome,) = await generate_checklists(
        [run_dir],
        model="checkgen:garble=1",
        out=out,
        instances=["plain"],
        settings=CheckgenSettings(max_rollouts=1, max_attempts=2),
    )
    assert outcome.error is not None and outcome.path is None
    assert "rollout ref/emoji/reference/plain/r0" in outcome.error
    assert "after 2 attempts" in outcome.error
    assert not out.exists()


async def test_bad_input_is_named(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"unknown instance\(s\) \['nope'\]"):
        await generate_checklists(
            [run_dir], model="checkgen", out=tmp_path / "x.yaml", instances=["nope"]
        )
    with pytest.raises(SpecError, match="no such endpoint file"):
        await generate_checklists([run_dir], model="missing.yaml", out=tmp_path / "x")
    bad = tmp_path / "bad.yaml"
    bad.write_text("SP:\n  checks:\n    - {check_id: a, description: d, check_type: vibes}\n")
    with pytest.raises(SpecError, match=r"bad\.yaml.*check_type"):
        load_checklist_file(bad)
    dup = tmp_path / "dup.yaml"
    dup.write_text(
        "SP:\n  checks:\n    - {check_id: a, description: d, check_type: compliance}\n"
        "Memory:\n  checks:\n    - {check_id: a, description: e, check_type: compliance}\n"
    )
    with pytest.raises(SpecError, match="duplicate check id 'a'"):
        load_checklist_file(dup)
    several = tmp_path / "file.yaml"
    several.write_text("")
    with pytest.raises(SpecError, match="several instances need a directory"):
        await generate_checklists([run_dir], model="checkgen", out=several)


def test_the_cli_wants_instances_named(run_dir: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["generate", "checklist", str(run_dir), "--model", "checkgen", "--out", "x"]
    )
    assert result.exit_code == 2 and "--all-instances" in result.stderr
