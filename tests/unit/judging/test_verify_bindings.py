import textwrap

import pytest

from adhere.core import Check, VerifierRef
from adhere.errors import SpecError
from adhere.judging._verify_bindings import load_bindings, parse_bindings
from tests.unit.judging.test_verif_support import instance


def write(tmp_path, text):
    path = tmp_path / "bindings.yaml"
    path.write_text(textwrap.dedent(text))
    return path


CHECKS = [
    Check(id="SP_no_emoji", source="SP", description="The final answer contains no emoji."),
    Check(id="MD_no_emoji", source="AgentsMd", description="Follows CLAUDE.md"),
    Check(id="X", source="UserQuery", description="The assistant does not use emoji at all."),
    Check(id="MD_runs_tests", source="AgentsMd", kind="testing", description="Runs the tests."),
    Check(id="Other", source="SP", description="Explains restock."),
]


def test_first_matching_rule_binds_and_plain_names_work(tmp_path):
    bindings = load_bindings(
        write(
            tmp_path,
            """
            bindings:
              - match: {check_id: "SP_no_emoji|.*_no_emoji$"}
                verifier: {name: no_emoji, params: {scope: final}}
              - match: {description: "(?i)does not use emoji"}
                verifier: no_emoji
              - match: {kind: testing, source: [AgentsMd, SP]}
                verifier: {name: tests_run, params: {after_last_change: true}}
              - match: {check_id: ".*"}
                verifier: no_emoji
            """,
        )
    )
    bound = {c.id: c.verifier for c in bindings.bind(CHECKS[:4])}
    assert bound["SP_no_emoji"] == VerifierRef(name="no_emoji", params={"scope": "final"})
    assert bound["MD_no_emoji"] == VerifierRef(name="no_emoji", params={"scope": "final"})
    assert bound["X"] == VerifierRef(name="no_emoji")
    assert bound["MD_runs_tests"] == VerifierRef(
        name="tests_run", params={"after_last_change": True}
    )


def test_check_id_must_match_whole_id_and_description_is_searched():
    bindings = parse_bindings(
        {"bindings": [{"match": {"check_id": "no_emoji"}, "verifier": "no_emoji"}]}
    )
    assert bindings.match(CHECKS[0]) is None  # "SP_no_emoji" is not a full match
    searched = parse_bindings(
        {"bindings": [{"match": {"description": "no emoji"}, "verifier": "no_emoji"}]}
    )
    assert searched.match(CHECKS[0]) is not None


def test_explicit_verifier_is_never_overridden():
    own = Check(
        id="SP_no_emoji",
        source="SP",
        description="d",
        verifier=VerifierRef(name="length_limit", params={"max_words": 5}),
    )
    bindings = parse_bindings({"bindings": [{"match": {"check_id": ".*"}, "verifier": "no_emoji"}]})
    assert bindings.bind([own])[0].verifier == own.verifier


def test_unmatched_checks_stay_for_the_judges():
    bindings = parse_bindings(
        {
            "bindings": [
                {"match": {"check_id": "SP_.*", "source": "AgentsMd"}, "verifier": "no_emoji"}
            ]
        }
    )
    assert all(c.verifier is None for c in bindings.bind(CHECKS))


def test_category_matches_the_instance_category_case_insensitively():
    bindings = parse_bindings(
        {
            "bindings": [
                {"match": {"category": "skill", "check_id": "SK_.*"}, "verifier": "skill_invoked"}
            ]
        }
    )
    check = Check(id="SK_uses_skill", source="SkillMd", description="d")
    assert bindings.match(check) is None  # no category given
    assert bindings.match(check, category="Skill") is not None
    bound = bindings.bind_instance(
        instance(category="Skill").model_copy(update={"checks": [check]})
    )
    assert bound.checks[0].verifier == VerifierRef(name="skill_invoked")


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("bindings: [\n  - match: {check_id: x\n", None, "malformed YAML at line"),
        ("- just a list\n", None, "'bindings' list"),
        ("bindings: []\n", "bindings", "at least 1"),
        ("bindings:\n  - match: {}\n    verifier: no_emoji\n", "bindings[0].match", "at least one"),
        (
            "bindings:\n  - match: {check_id: '('}\n    verifier: no_emoji\n",
            "bindings[0].match.check_id",
            "regular expression",
        ),
        (
            "bindings:\n  - match: {colour: red}\n    verifier: no_emoji\n",
            "bindings[0].match.colour",
            "unknown field",
        ),
        (
            "bindings:\n  - match: {source: Nowhere}\n    verifier: no_emoji\n",
            "bindings[0].match.source[0]",
            "",
        ),
        (
            "bindings:\n  - match: {check_id: x}\n    verifier: no_such_verifier\n",
            "bindings[0].verifier.name",
            "unknown verifier 'no_such_verifier'",
        ),
        (
            "bindings:\n  - match: {check_id: x}\n"
            "    verifier: {name: no_emoji, params: {scope: sometimes}}\n",
            "bindings[0].verifier.params.scope",
            "no_emoji",
        ),
    ],
)
def test_bad_files_name_file_and_field(tmp_path, text, field, words):
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as err:
        load_bindings(path)
    assert str(path) in str(err.value)
    assert words in str(err.value)
    if field is not None:
        assert err.value.field == field


def test_missing_file_is_a_spec_error(tmp_path):
    with pytest.raises(SpecError, match="cannot read file"):
        load_bindings(tmp_path / "nope.yaml")


def test_every_example_in_the_docs_is_valid():
    import re
    from pathlib import Path

    import yaml

    from adhere.judging._verify import verifier_names

    docs = Path(__file__).resolve().parents[3] / "docs" / "verifiers.md"
    blocks = re.findall(r"```yaml\n(.*?)```", docs.read_text(encoding="utf-8"), re.DOTALL)
    named = set()
    for block in blocks:
        data = yaml.safe_load(block)
        if "bindings" not in data:  # a single `verifier:` line, as on a check
            data = {"bindings": [{"match": {"check_id": ".*"}, "verifier": data["verifier"]}]}
        for rule in parse_bindings(data, file="docs/verifiers.md").rules:
            named.add(rule.verifier.name)
    assert named >= set(verifier_names()) - {n for n in verifier_names() if n.startswith("test_")}
