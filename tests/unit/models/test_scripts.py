import pytest

from adhere.errors import SpecError
from adhere.testing import ScriptedCall, ScriptStep, load_scripts, parse_script


def test_load_scripts_names_files_by_stem(tmp_path):
    (tmp_path / "hello.yaml").write_text("- text: Hi there\n- text: Bye\n")
    agent = tmp_path / "more" / "agent.yml"
    agent.parent.mkdir()
    agent.write_text(
        "steps:\n"
        "  - reasoning: look first\n"
        "    tool_call: {name: ls, arguments: {path: .}}\n"
        "  - text: Found it\n"
        "    tool_calls:\n"
        "      - {name: cat, arguments: {path: a.txt}}\n"
        "      - {name: wc}\n"
    )
    scripts = load_scripts([tmp_path / "hello.yaml", agent.parent])
    assert scripts["hello"] == [ScriptStep(text="Hi there"), ScriptStep(text="Bye")]
    first, second = scripts["agent"]
    assert first.reasoning == "look first"
    assert first.tool_calls == (ScriptedCall("ls", {"path": "."}),)
    assert [call.name for call in second.tool_calls] == ["cat", "wc"]
    assert dict(second.tool_calls[1].arguments) == {}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("- text: [unclosed\n", "invalid YAML"),
        ("{}\n", "non-empty list"),
        ("- hello\n", "[0]: a step must be a mapping"),
        ("- text: a\n- txt: b\n", "[1]: unknown key(s) ['txt']"),
        ("- {}\n", "needs 'text' or a tool call"),
        ("- tool_call: {arguments: {}}\n", "[0].tool_call.name"),
        ("- tool_call: {name: x, arguments: [1]}\n", "[0].tool_call.arguments"),
        ("- tool_call: {name: x, arguments: {when: 2024-01-01}}\n", "plain JSON"),
        ("- text: 3\n", "[0].text: expected a string"),
        ("steps: []\nextra: 1\n", "unknown key(s) ['extra']"),
    ],
)
def test_bad_scripts_name_file_and_field(tmp_path, text, fragment):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as caught:
        load_scripts([path])
    assert str(path) in str(caught.value)
    assert fragment in str(caught.value)


def test_missing_file_and_duplicate_names(tmp_path):
    with pytest.raises(SpecError, match="cannot read script"):
        load_scripts([tmp_path / "nope.yaml"])
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.yaml").write_text("- text: one\n")
    (tmp_path / "x.yaml").write_text("- text: two\n")
    with pytest.raises(SpecError, match="also defined"):
        load_scripts([tmp_path / "a", tmp_path / "x.yaml"])


def test_parse_script_accepts_plain_data():
    assert parse_script([{"text": "hi"}]) == [ScriptStep(text="hi")]
