"""``file_rules`` and ``memory_updated``: how rules combine, what each says, who is cited."""

import pytest
from pydantic import ValidationError

from adhere.judging.verifiers._files import FileRulesParams, MemoryUpdatedParams, changed_paths
from tests.unit.judging.test_verif_support import act, ctx, instance, say, traj, verdict

BASE = {
    "inventory.py": "x = 1\n",
    "tests/test_inventory.py": "def test(): pass\n",
    "README.md": "#",
}


def changed(files=None, deleted=(), meta=None, messages=()):
    meta = {"deleted_files": list(deleted)} if meta is None else meta
    return ctx(
        traj(*messages, say("Done."), files=files or {}, meta=meta), instance(files=dict(BASE))
    )


def test_the_params_need_a_rule_and_a_valid_name_pattern() -> None:
    with pytest.raises(ValidationError, match="give at least one of allowed_globs"):
        FileRulesParams()
    assert FileRulesParams(allowed_globs=[]).allowed_globs == []  # "nothing may change"
    with pytest.raises(ValidationError, match="invalid regular expression"):
        FileRulesParams(name_pattern="(")
    with pytest.raises(ValidationError, match="invalid regular expression"):
        MemoryUpdatedParams(contains="[")
    assert ".kilocode/**" in FileRulesParams(must_exist=["x"]).ignore_globs


def test_changed_new_and_deleted_paths() -> None:
    context = changed({"b.py": "x", "inventory.py": "y", "a.py": "z"}, deleted=["z.md", "c.md"])
    assert changed_paths(context) == (
        ["a.py", "b.py", "inventory.py"],
        ["a.py", "b.py"],
        ["c.md", "z.md"],
    )
    bad_meta = changed({"a.py": "x"}, meta={"deleted_files": "c.md"})
    assert changed_paths(bad_meta)[2] == []  # not a list: no deletions read


def test_an_empty_allow_list_forbids_every_change() -> None:
    outcome = verdict("file_rules", changed({"a.py": "x"}), allowed_globs=[])
    assert outcome.result == "fail"
    assert outcome.reasoning == "changed outside the allowed paths: a.py"
    assert verdict("file_rules", changed(), allowed_globs=[]).result == "pass"


def test_every_failed_rule_is_named_in_one_verdict() -> None:
    context = changed({"tests/new_thing.py": "x", "docs/x.md": "y"}, deleted=["README.md"])
    outcome = verdict(
        "file_rules",
        context,
        allowed_globs=["docs/**"],
        forbidden_globs=["tests/**"],
        must_exist=["CHANGELOG.md", "inventory.py"],
        must_not_exist=["docs/*.md"],
        name_pattern=r"test_\w+\.py",
    )
    assert outcome.result == "fail"
    assert outcome.reasoning.split("; ") == [
        "changed outside the allowed paths: README.md, tests/new_thing.py",
        "changed forbidden paths: tests/new_thing.py",
        "no file matches 'CHANGELOG.md' after the trial",
        "docs/x.md exists after the trial (must not)",
        "new files not named like /test_\\w+\\.py/: docs/x.md, tests/new_thing.py",
    ]
    assert outcome.details["touched"] == ["README.md", "docs/x.md", "tests/new_thing.py"]


def test_a_pass_lists_the_changed_files() -> None:
    one = verdict("file_rules", changed({"a.py": "x"}), forbidden_globs=["tests/**"])
    assert (one.result, one.reasoning) == ("pass", "all rules hold; 1 changed file (a.py)")
    assert one.details["touched"] == ["a.py"]
    two = verdict("file_rules", changed({"a.py": "x"}, deleted=["b.py"]), must_exist=["a.py"])
    assert two.reasoning == "all rules hold; 2 changed files (a.py, b.py)"
    none = verdict("file_rules", changed(), must_not_exist=["CHANGELOG.md"])
    assert none.reasoning == "all rules hold; 0 changed files"


def test_the_naming_rule_alone_is_n_a_without_new_files_and_a_pass_with_other_rules() -> None:
    only_naming = verdict("file_rules", changed({"inventory.py": "y"}), name_pattern="x")
    assert only_naming.result == "n/a"
    assert only_naming.reasoning == "no file was created, so the naming rule did not arise"
    named = verdict("file_rules", changed({"test_a.py": "y"}), name_pattern=r"test_\w+\.py")
    assert named.result == "pass"
    with_another = verdict(
        "file_rules", changed({"inventory.py": "y"}), name_pattern="x", forbidden_globs=["docs/**"]
    )
    assert with_another.result == "pass"


def test_a_path_or_a_glob_must_match_a_file_after_the_trial() -> None:
    context = changed({"docs/a.md": "x"}, deleted=["README.md"])
    assert verdict("file_rules", context, must_exist=["docs/a.md"]).result == "pass"
    assert verdict("file_rules", context, must_exist=["docs/*.md"]).result == "pass"
    assert verdict("file_rules", context, must_exist=["README.md"]).result == "fail"  # deleted
    assert verdict("file_rules", context, must_not_exist=["README.md"]).result == "pass"


def test_the_evidence_is_the_last_main_conversation_write_of_a_culprit() -> None:
    messages = (
        act("", "Write", file_path="tests/a.py", content="x"),
        act("", "Read", file_path="tests/b.py"),
        act("", "Edit", file_path="tests/a.py", old_string="x", new_string="y"),
        act("", "Write", file_path="ok.py", content="x"),
    )
    context = changed({"tests/a.py": "y", "ok.py": "x"}, messages=messages)
    outcome = verdict("file_rules", context, forbidden_globs=["tests/**"])
    assert outcome.result == "fail" and outcome.evidence == 4
    unseen = verdict("file_rules", changed({"tests/z.py": "x"}), forbidden_globs=["tests/**"])
    assert unseen.result == "fail" and unseen.evidence is None  # no call wrote it


def test_memory_updated_names_the_files_and_the_text_looked_for() -> None:
    messages = (act("", "Write", file_path="MEMORY.md", content="- likes tabs"),)
    context = changed({"MEMORY.md": "- likes tabs", "memory/b.md": "x"}, messages=messages)
    outcome = verdict("memory_updated", context)
    assert (outcome.result, outcome.evidence) == ("pass", 0)
    assert outcome.reasoning == "memory files updated: MEMORY.md, memory/b.md"
    holding = verdict("memory_updated", context, contains="tabs")
    assert holding.reasoning == "memory file updated holding /tabs/: MEMORY.md"
    absent = verdict("memory_updated", context, expect="absent")
    assert absent.result == "fail" and absent.reasoning.startswith("memory files updated")


def test_memory_updated_says_where_it_looked_when_nothing_was_updated() -> None:
    context = changed({"a.py": "x"})
    outcome = verdict("memory_updated", context)
    assert outcome.result == "fail" and outcome.evidence is None
    assert outcome.reasoning == (
        "no memory file (MEMORY.md, memory/**, memory-bank/**, .claude/memory/**) was created "
        "or changed"
    )
    by_path = verdict("memory_updated", context, paths=["NOTES.md"], contains="x")
    assert by_path.reasoning == "no memory file (NOTES.md) was created or changed holding /x/"
    by_glob = verdict("memory_updated", context, paths=["N.md"], globs=["notes/*"], expect="absent")
    assert (by_glob.result, by_glob.reasoning) == (
        "pass",
        "no memory file (N.md, notes/*) was created or changed",
    )


def test_given_globs_replace_the_default_memory_patterns() -> None:
    context = changed({"MEMORY.md": "x"})
    assert verdict("memory_updated", context, globs=["notes/*"]).result == "fail"
    assert verdict("memory_updated", context, paths=["NOTES.md"]).result == "fail"
    assert verdict("memory_updated", context, paths=["MEMORY.md"]).result == "pass"
