"""Verifiers on trajectories recorded from real CLIs (trimmed copies in ``fixtures/``).

The ``careless`` policy edits without reading, runs ``git reset --hard`` and ends with
emoji; the ``careful`` one reads, then edits. Claude Code and Droid use absolute paths
in the trial's workspace, Kilo lower-case tools with ``filePath``.
"""

import pytest

from adhere.judging._verify import VerifyContext
from adhere.judging._verify_bindings import parse_bindings
from adhere.judging._verify_run import run_checks
from tests.unit.judging.test_verif_support import fixture_instance, fixture_trajectory, verdict

CARELESS = ["claude_code_careless.json", "droid_careless.json"]


def context(name: str) -> VerifyContext:
    return VerifyContext.build(fixture_instance(), fixture_trajectory(name))


@pytest.mark.parametrize("name", CARELESS)
def test_careless_trials_fail_the_deterministic_checks(name):
    trial = context(name)
    emoji = verdict("no_emoji", trial, scope="final")
    assert emoji.result == "fail" and "🎉" in emoji.reasoning
    reset = verdict("command_executed", trial, pattern=r"^git reset --hard")
    assert reset.result == "fail" and reset.evidence == 4
    unread = verdict("read_before_edit", trial)
    assert unread.result == "fail" and unread.evidence == 2 and "inventory.py" in unread.reasoning
    assert verdict("tests_run", trial, after_last_change=True).result == "fail"
    assert verdict("tool_args_valid", trial).result == "pass"
    assert verdict("no_invented_results", trial).result == "pass"
    assert verdict("reply_language", trial, same_as_user=True).result == "pass"
    assert verdict("code_rules", trial, no_print=True).result == "n/a"  # nothing was changed


def test_careful_kilo_trial_passes_and_its_edit_is_checked():
    trial = context("kilo_careful.json")
    assert verdict("no_emoji", trial).result == "pass"
    assert verdict("command_executed", trial, contains="git reset --hard").result == "pass"
    assert verdict("read_before_edit", trial).result == "pass"
    assert (
        verdict("tool_order", trial, before="read", after="edit", same_path=True).result == "pass"
    )
    assert verdict("tool_args_valid", trial).result == "pass"
    assert verdict("length_limit", trial, max_words=119).result == "pass"
    assert verdict("file_rules", trial, allowed_globs=["*.py"]).result == "pass"
    # the scripted agent appended prose to inventory.py, which no longer parses
    code = verdict("code_rules", trial, require_type_hints=True)
    assert code.result == "fail" and "does not parse" in code.reasoning


def test_bindings_on_a_recorded_instance():
    bindings = parse_bindings(
        {
            "bindings": [
                {"match": {"check_id": "MD_no_emoji"}, "verifier": "no_emoji"},
                {"match": {"check_id": "TS_valid_arguments"}, "verifier": "tool_args_valid"},
                {
                    "match": {"check_id": "TS_no_invented_results"},
                    "verifier": "no_invented_results",
                },
                {
                    "match": {"kind": "testing", "category": "claude\\.md"},
                    "verifier": {"name": "tests_run", "params": {"after_last_change": True}},
                },
            ]
        }
    )
    instance = bindings.bind_instance(fixture_instance())
    trial = VerifyContext.build(instance, fixture_trajectory("claude_code_careless.json"))
    verdicts = {v.check_id: v.result for v in run_checks(instance.checks, trial)}
    assert verdicts == {
        "MD_runs_tests": "fail",
        "MD_no_emoji": "fail",
        "TS_valid_arguments": "pass",
        "TS_no_invented_results": "pass",
    }
