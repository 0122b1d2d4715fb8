"""PACIFIC prompt templates from files: every variable documented and filled, errors named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adhere.errors import SpecError
from adhere.spec import BenchmarkSpec
from adhere.suites.pacific import (
    ADHERE_TEMPLATES,
    PAPER_TEMPLATES,
    TEMPLATE_VARIABLES,
    GeneratorParams,
    PacificSuite,
    generate,
)
from tests.helpers import ROOT

DOC = ROOT / "docs" / "pacific.md"


def load(tmp_path: Path, options: dict, **source: object) -> list:
    spec = BenchmarkSpec.model_validate(
        {
            "suite": "pacific",
            "options": options,
            "source": {"generate": {"instructions": 3, "perLanguage": 1, "seed": 3, **source}},
        }
    )
    return PacificSuite(**options).load(spec, base_dir=tmp_path, file=str(tmp_path / "b.yaml"))


def every_variable(key: str) -> str:
    return "\n".join(f"<{name}>${{{name}}}</{name}>" for name in TEMPLATE_VARIABLES[key])


@pytest.mark.parametrize("mode", ["prompt", "chat"])
def test_a_template_file_replaces_the_wording_and_gets_every_variable(
    tmp_path: Path, mode: str
) -> None:
    for key in TEMPLATE_VARIABLES:
        (tmp_path / f"{key}.txt").write_text(every_variable(key) + "\n", encoding="utf-8")
    files = {key: f"{key}.txt" for key in TEMPLATE_VARIABLES}
    instances = load(tmp_path, {"templates": files}, mode=mode)
    for instance in instances:
        sample = instance.metadata["sample"]
        texts = [instance.system_prompt, *instance.turns]
        keys = ["system", "prompt"] if mode == "prompt" else ["system", "chat_first"]
        keys += ["chat_next"] * (len(texts) - len(keys))
        for key, text in zip(keys, texts, strict=True):
            found = dict(re.findall(r"<(\w+)>(.*?)</\1>", text, flags=re.DOTALL))
            assert set(found) == set(TEMPLATE_VARIABLES[key])  # each variable, filled
            assert "$" not in text and not text.endswith("\n")  # one final newline dropped
        system = dict(re.findall(r"<(\w+)>(.*?)</\1>", texts[0], flags=re.DOTALL))
        assert system["n_instructions"] == "3"
        first = dict(re.findall(r"<(\w+)>(.*?)</\1>", texts[1], flags=re.DOTALL))
        assert first["input_string"] == str(sample["initial"])
    assert all(instance.id.startswith("pacific-") for instance in instances)


def test_one_template_replaced_keeps_the_protocols_others(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text("Trace: $inst_string\nInput: $input_string", encoding="utf-8")
    (instance,) = load(tmp_path, {"protocol": "paper", "templates": {"prompt": "p.txt"}})[:1]
    assert instance.system_prompt == PAPER_TEMPLATES.system == ""
    assert instance.turns[0].startswith("Trace: Instruction 1:\n```")
    (default,) = load(tmp_path, {"templates": {"prompt": "p.txt"}})[:1]
    assert default.system_prompt == ADHERE_TEMPLATES.system


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Input: $input", r"unknown template variable\(s\) \$input; the prompt template gets"),
        ("costs 5$", r"'\$' that starts no variable"),
    ],
)
def test_bad_template_names_the_file_and_variable(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "p.txt").write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=message) as info:
        load(tmp_path, {"templates": {"prompt": "p.txt"}})
    assert str(tmp_path / "p.txt") in str(info.value)
    assert info.value.field == "spec.options.templates.prompt"


def test_a_missing_template_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="cannot read the chat_next template") as info:
        load(tmp_path, {"templates": {"chat_next": "gone.txt"}})
    assert info.value.field == "spec.options.templates.chat_next"


def test_chat_next_may_not_use_the_input(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("$input_string", encoding="utf-8")
    with pytest.raises(SpecError, match="the chat_next template gets"):
        load(tmp_path, {"templates": {"chat_next": "n.txt"}}, mode="chat")


def test_dollar_dollar_is_a_dollar(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text("Costs $$5 in $prog_lang", encoding="utf-8")
    instance = load(tmp_path, {"templates": {"system": "s.txt"}}, languages=["java"])[0]
    assert instance.system_prompt == "Costs $5 in Java"


def test_the_docs_list_every_template_and_variable() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Prompt templates", 1)[1].split("\n## ", 1)[0]
    for key, variables in TEMPLATE_VARIABLES.items():
        row = next(line for line in section.splitlines() if line.startswith(f"| `{key}` |"))
        assert {v.strip("`") for v in re.findall(r"`(\w+)`", row)} >= set(variables), key
    for name in {v for vs in TEMPLATE_VARIABLES.values() for v in vs}:
        assert f"`{name}`" in section, name


def test_nl_samples_fill_the_code_variables_with_nothing() -> None:
    params = GeneratorParams(instructions=(2,), lengths=(3,), per_language=1, seed=1, kind="nl")
    sample = next(iter(generate(params)))
    from adhere.suites.pacific import render_turns

    _system, (turn,) = render_turns(sample, PAPER_TEMPLATES)
    assert "```" not in turn and "Instruction 1: " in turn and "natural language" in turn
