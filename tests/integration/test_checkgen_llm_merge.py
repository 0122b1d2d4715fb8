"""``adhere generate checklist`` with the LLM merge and the Skill.md rule, end to end.

Reference rollouts come from the real runner (reference scaffold, a scripted agent,
the recording proxy). The scripted ``checkgen`` policy (a test double) served by the
scripted policy server plays both the proposing and the merging model.
"""

import asyncio
import json
import re
from pathlib import Path

import pytest
import yaml

from adhere.judging import skill_rule_checks
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.workflows._checkgen import CheckgenSettings, generate_checklists, load_checklist_file
from tests.helpers import run_cli

SYSTEM = "Never use emoji. Always answer in English. Only change files that the task names."
SKILL_MD = "Use pdfplumber to extract tables. Always keep the original file unchanged."
PLACEHOLDER = {
    "SP": {
        "description": "",
        "checks": [
            {"check_id": "x", "description": "To be generated.", "check_type": "compliance"}
        ],
    }
}


def make_rollout(root: Path) -> Path:
    """A Skill instance, a Skill instance naming no skill and a plain one; two repeats."""
    (root / "ws").mkdir()
    (root / "ws" / "README.md").write_text("# reports\n")
    (root / "ws" / "SKILL.md").write_text(SKILL_MD)
    base = {"system_prompt": SYSTEM, "workspace": ["ws"], "checklist": PLACEHOLDER}
    rows = [
        {
            **base,
            "instance_id": "skill-pdf",
            "user_query": ["Show me the first line of README.md. Use the Read tool for it."],
            "category": "Skill",
            "expected_skill": "pdf",
        },
        {
            **base,
            "instance_id": "skill-unnamed",
            "user_query": ["Show me README.md."],
            "category": "Skill",
        },
        {
            **base,
            "instance_id": "plain",
            "user_query": ["Show me the first line of README.md. Use the Read tool for it."],
            "category": "SP",
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
        "  scaffolds: [reference]\n  repeats: 2\n  parallelism: 2\n  storage: file://./runs\n"
    )
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("checkgen-merge")
    summary = asyncio.run(execute(prepare(load_run_config([make_rollout(root)]))))
    assert summary.ok == 6
    return root / "runs" / "ref"


def descriptions(path: Path) -> list[str]:
    return [c.description for c in load_checklist_file(path)]


async def test_llm_merge_and_the_skill_rule(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "llm"
    outcomes = await generate_checklists(
        [run_dir],
        model="checkgen:seed=1,drop=0",
        out=out,
        instances=["skill-pdf", "plain"],
        settings=CheckgenSettings(merge="llm"),
    )
    assert [o.error for o in outcomes] == [None, None]
    skill_out, plain_out = (o.checklist for o in outcomes)
    assert skill_out is not None and plain_out is not None
    assert skill_out.merge == "llm" and skill_out.merge_note is None
    text = (out / "skill-pdf.yaml").read_text()
    assert "# Merge: by the model (prompt checkgen-merge-v1)." in text
    data = yaml.safe_load(text)
    # The Skill.md category exists with its three required checks first, whatever the
    # proposer saw: the scripted agent never invoked a skill.
    skill = data["Skill.md"]["checks"]
    assert [c["check_id"] for c in skill[:3]] == ["SK-01", "SK-02", "SK-03"]
    assert [c["description"] for c in skill[:3]] == [
        c.description for c in skill_rule_checks("pdf")
    ]
    assert 'Expected skill: "pdf"' in data["Skill.md"]["description"]
    assert text.count("# required (Skill.md rule)") == 3
    # The plain instance has no Skill.md category; both files load as checklists.
    assert "Skill.md" not in yaml.safe_load((out / "plain.yaml").read_text())
    for path in (out / "skill-pdf.yaml", out / "plain.yaml"):
        found = descriptions(path)
        assert len(found) == len(set(found))
        joined = " ".join(found)
        for sentence in ("Never use emoji.", "Always answer in English.", "Use the Read tool"):
            assert joined.count(sentence) == 1, (path, sentence)
    # Every check the proposals held is kept: the LLM merge covers what the
    # deterministic merge does (the double groups by instruction sentence).
    det = tmp_path / "det"
    (outcome,) = await generate_checklists(
        [run_dir], model="checkgen:seed=1,drop=0", out=det / "plain.yaml", instances=["plain"]
    )
    assert outcome.checklist is not None and outcome.checklist.merge == "deterministic"
    assert sorted(c.support for c in outcome.checklist.checks) == sorted(
        c.support for c in plain_out.checks
    )


async def test_a_skill_instance_without_its_skill_name_fails_clearly(
    run_dir: Path, tmp_path: Path
) -> None:
    (outcome,) = await generate_checklists(
        [run_dir], model="checkgen:seed=1", out=tmp_path / "x.yaml", instances=["skill-unnamed"]
    )
    assert outcome.path is None and not (tmp_path / "x.yaml").exists()
    assert outcome.error is not None
    assert "'skill-unnamed' has category 'Skill' but no expected skill" in outcome.error
    assert "expected_skill" in outcome.error


def test_an_unusable_llm_merge_falls_back_and_says_so(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "fallback.yaml"
    result = run_cli(
        "generate", "checklist", str(run_dir), "--instance", "plain", "--merge", "llm",
        "--model", "checkgen:seed=1,mergefault=1", "--attempts", "2", "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "note the LLM merge failed, the deterministic merge was used instead" in result.stderr
    assert "1 checklist(s) written, 0 failed" in result.stderr
    text = out.read_text()
    assert "# Merge: deterministic" in text
    assert re.search(r"# NOTE: the LLM merge failed, .*after 2 attempts", text)
    # Nothing was lost: the same checks as a deterministic run.
    plain = tmp_path / "plain.yaml"
    again = run_cli(
        "generate", "checklist", str(run_dir), "--instance", "plain",
        "--model", "checkgen:seed=1", "--out", str(plain),
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert descriptions(out) == descriptions(plain)
