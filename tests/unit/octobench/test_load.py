import json
from collections import Counter
from pathlib import Path

import pytest

from adhere.core import Source
from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites import get_suite
from adhere.suites.octobench import category_source, load_octobench
from tests.helpers import shared_data

SHARED = shared_data("octocodingbench", "octocodingbench.jsonl")


def line(**over):
    row = {
        "instance_id": "x-1",
        "user_query": ["do it"],
        "system_prompt": "",
        "category": "Claude.md",
        "image": "registry/img:1",
        "workspace_abs_path": "/app",
        "scaffold": {"name": "claudecode", "version": "2"},
        "checklist": {
            "SP": {
                "description": "d",
                "checks": [{"check_id": "a", "description": "x", "check_type": "compliance"}],
            },
            "Memory bank (project-specific rules)": {
                "description": "",
                "checks": [{"check_id": "b", "description": "y", "check_type": "testing"}],
            },
        },
    }
    row.update(over)
    return json.dumps(row, ensure_ascii=False)


def test_loads_the_published_seed_instances():
    instances = load_octobench(SHARED)
    assert len(instances) == 72
    assert sum(len(i.checks) for i in instances) == 2422
    assert all(i.workspace.image for i in instances)
    multi = [i for i in instances if len(i.turns) > 1]
    assert len(multi) == 1 and multi[0].metadata["turns"] == 3
    skill = [i for i in instances if i.metadata["category"] == "Skill"]
    assert skill and all(i.metadata["expected_skill"] for i in skill)


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("SP", Source.SYSTEM_PROMPT),
        ("System reminder", Source.SYSTEM_REMINDER),
        ("User query", Source.USER_QUERY),
        ("Agents.md", Source.AGENTS_MD),
        ("Skill.md", Source.SKILL_MD),
        ("Memory bank", Source.MEMORY),
        ("Tool schema", Source.TOOL_SCHEMA),
        ("testing", Source.TEST),
    ],
)
def test_category_sources(name, source):
    assert category_source(name) == source


def test_workspace_as_inline_files_dir_or_workspaces_option(tmp_path: Path):
    ws = tmp_path / "ws" / "x-1"
    ws.mkdir(parents=True)
    (ws / "CLAUDE.md").write_text("rules")
    (tmp_path / "a.jsonl").write_text(line() + "\n")
    suite = get_suite("octobench", workspaces="ws")
    (inst,) = suite.load(
        BenchmarkSpec.model_validate({"suite": "octobench", "source": {"path": "a.jsonl"}}),
        base_dir=tmp_path,
    )
    assert (
        inst.workspace.files == {"CLAUDE.md": "rules"} and inst.workspace.image == "registry/img:1"
    )
    assert [c.source for c in inst.checks] == [Source.SYSTEM_PROMPT, Source.MEMORY]
    (tmp_path / "b.jsonl").write_text(
        line(workspace={"AGENTS.md": "tabs"})
        + "\n"
        + line(instance_id="x-2", workspace="ws/x-1")
        + "\n"
    )
    a, b = load_octobench(tmp_path / "b.jsonl")
    assert a.workspace.files == {"AGENTS.md": "tabs"} and b.workspace.files == {
        "CLAUDE.md": "rules"
    }


def test_errors_name_line_and_field(tmp_path: Path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        line()
        + "\n"
        + line(
            instance_id="y",
            checklist={
                "Vibes": {
                    "checks": [{"check_id": "a", "description": "x", "check_type": "compliance"}]
                }
            },
        )
        + "\n"
    )
    with pytest.raises(SpecError) as info:
        load_octobench(path)
    assert f"{path}:2" in str(info.value) and info.value.field == "checklist.Vibes"
    path.write_text(line(colour="red") + "\n")
    with pytest.raises(SpecError, match="unknown field"):
        load_octobench(path)
    path.write_text(line() + "\n" + line() + "\n")
    with pytest.raises(SpecError, match="duplicate instance id"):
        load_octobench(path)
    with pytest.raises(SpecError, match="unknown OctoBench options"):
        get_suite("octobench", colour="red")


def test_conflict_field_lands_in_metadata_with_ordered_sides(tmp_path: Path):
    conflict = {"scenario": "language", "sides": {"Memory bank": "b", "SP": "a"}}
    path = tmp_path / "c.jsonl"
    path.write_text(line(conflict=conflict) + "\n")
    (inst,) = load_octobench(path)
    assert inst.metadata["conflict"] == {
        "scenario": "language",
        "type": "SP vs Memory",
        "sides": [
            {"source": "SP", "check": "a", "instruction": "d"},  # the category's description
            {"source": "Memory", "check": "b", "instruction": ""},
        ],
    }
    assert inst.metadata["conflict_type"] == "SP vs Memory"
    assert inst.metadata["conflict_scenario"] == "language"


def test_conflict_instructions_are_given_to_the_sides(tmp_path: Path):
    conflict = {
        "scenario": "language",
        "sides": {"Memory bank": "b", "SP": "a"},
        "instructions": {"Memory bank": "Write in French."},
    }
    path = tmp_path / "c.jsonl"
    path.write_text(line(conflict=conflict) + "\n")
    (inst,) = load_octobench(path)
    sides = inst.metadata["conflict"]["sides"]
    assert [s["instruction"] for s in sides] == ["d", "Write in French."]
    conflict["instructions"] = {"User query": "x"}
    path.write_text(line(conflict=conflict) + "\n")
    with pytest.raises(SpecError, match="'User query', which is not a side") as caught:
        load_octobench(path)
    assert caught.value.field == "conflict.instructions"


@pytest.mark.parametrize(
    ("sides", "field", "message"),
    [
        ({"SP": "a"}, "conflict.sides", "exactly two sides"),
        ({"SP": "a", "User query": "zz"}, "conflict.sides.User query", "'zz' is not in"),
        ({"SP": "a", "Sp": "b"}, "conflict.sides", "different sources"),
        ({"SP": "a", "Wiki": "b"}, "conflict.sides.Wiki", "unknown checklist category"),
    ],
)
def test_bad_conflict_is_rejected_naming_the_field(tmp_path: Path, sides, field, message):
    path = tmp_path / "c.jsonl"
    path.write_text(line(conflict={"scenario": "emoji", "sides": sides}) + "\n")
    with pytest.raises(SpecError, match=message) as caught:
        load_octobench(path)
    assert caught.value.field == field and str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "name", "version", "from_paper"),
    [
        ({"name": "claudecode", "version": "2.0.69"}, "claude-code", "2.0.69", False),
        ({"name": "kilo-dev", "version": "0.10.2"}, "kilo", "0.10.2", False),
        ({"name": "kilo-dev"}, "kilo", "0.10.2", True),
        ({"name": "droid"}, "droid", "0.42.2", True),
        ({"name": "claude-code", "version": "2.1.0"}, "claude-code", "2.1.0", False),
        ({"name": "windsurf"}, "windsurf", None, False),
    ],
)
def test_the_scaffold_a_row_names_under_adheres_name(
    tmp_path: Path, raw, name, version, from_paper
):
    path = tmp_path / "a.jsonl"
    path.write_text(line(scaffold=raw) + "\n")
    (inst,) = load_octobench(path)
    assert inst.scaffold is not None
    assert (inst.scaffold.name, inst.scaffold.version) == (name, version)
    assert inst.scaffold.named == raw["name"]
    assert bool(inst.scaffold.version_note) == from_paper
    assert inst.metadata["source_scaffold"] == raw["name"]


def test_a_row_without_a_scaffold_names_none_and_an_empty_name_is_an_error(tmp_path: Path):
    path = tmp_path / "a.jsonl"
    path.write_text(line(scaffold=None) + "\n")
    assert load_octobench(path)[0].scaffold is None
    path.write_text(line(scaffold={"name": " "}) + "\n")
    with pytest.raises(SpecError) as caught:
        load_octobench(path)
    assert caught.value.field == "scaffold.name"


def test_the_published_rows_name_54_claude_code_11_kilo_7_droid():
    found = Counter((i.scaffold.name, i.scaffold.version) for i in load_octobench(SHARED))
    assert found == {("claude-code", "2.0.69"): 54, ("kilo", "0.10.2"): 11, ("droid", "0.42.2"): 7}
