"""The restyler behind the scripted oracle: every winning style met, noise that breaks."""

import ast

import pytest

from adhere.suites.manyih import (
    CodingSample,
    Task,
    answer_key,
    check_style,
    check_styles,
    load_coding,
    restyle,
    sample_to_instance,
    winners,
)
from adhere.suites.manyih._rename import NameRules, apply_renames, plan_renames
from adhere.suites.manyih._restyle_text import reindent, requote
from adhere.suites.manyih._wrap import wrap_long_lines
from tests.helpers import ROOT

DATA = ROOT.parent / "shared" / "data" / "manyih" / "coding.json"


@pytest.fixture(scope="module")
def samples() -> list[CodingSample]:
    return load_coding(DATA)


COLLATERAL = {
    # breaking the first necessarily breaks these (they imply it, or share its subject)
    "op_space_arithmetic": {"op_space_around"},
    "var_min3": {"var_min5"},
    "var_max2": {"var_single"},
    "indent_spaces": {"indent_2", "indent_4"},
    "types_args_required": {"types_full", "types_args_only"},
    "blank_internal_required": {"blank_internal_one"},
    "doc_oneline": {"doc_none"},
    "line_120": {"line_79"},
}


def task_of(sample: CodingSample) -> Task:
    return answer_key(sample_to_instance(sample)).task


def test_every_published_sample_meets_all_its_winners(samples: list[CodingSample]) -> None:
    """No style is left unmet on the published data (unit tests: the sandbox test)."""
    unmet = {}
    for sample in samples:
        result = restyle(task_of(sample), winners(sample))
        assert result.noise == []
        if result.unmet:
            unmet[sample.id] = result.unmet
        ast.parse(result.code)
    assert unmet == {}


def test_noise_breaks_exactly_what_it_is_asked_to(samples: list[CodingSample]) -> None:
    checked = 0
    for sample in samples[::9]:
        won = winners(sample)
        task = task_of(sample)
        for style in won:
            result = restyle(task, won, violate=[style])
            outcome = check_style(result.code, style)
            if style == "line_unlimited":
                assert outcome.passed  # nothing can break it
                continue
            assert not outcome.passed, (sample.id, style)
            assert set(result.unmet) <= COLLATERAL.get(style, set()), (sample.id, style)
            checked += 1
    assert checked > 200


def test_several_styles_broken_at_once(samples: list[CodingSample]) -> None:
    sample = samples[0]  # winners: types x2, blank lines x2, license, naming
    won = winners(sample)
    broken = ["license_apache", "naming_camel", "blank_internal_one"]
    result = restyle(task_of(sample), won, violate=broken)
    outcomes = check_styles(result.code, won)
    assert [s for s in won if not outcomes[s].passed] == [s for s in won if s in broken]
    assert result.noise == [f"broke {s}" for s in sorted(broken)]


def test_break_tests_renames_the_tested_function(samples: list[CodingSample]) -> None:
    sample = samples[0]
    result = restyle(task_of(sample), winners(sample), break_tests=True)
    assert "def Diff_even_odd(" in result.code and "def diff_even_odd(" not in result.code
    assert result.unmet == {} and result.noise == ["renamed the tested function"]


def test_restyle_rejects_unknown_or_unwanted_styles() -> None:
    task = Task("def f(a):\n    return a\n", "f")
    with pytest.raises(KeyError):
        restyle(task, ["indent_3"])
    with pytest.raises(ValueError, match="only violate"):
        restyle(task, ["indent_4"], violate=["indent_2"])


def test_requote_re_escapes_only_when_needed() -> None:
    code = 'a = "x"\nb = "it\'s"\nc = "say \'hi\' \\"now\\""\nd = f"{a}"\n'
    out = requote(code, "'")
    assert "a = 'x'" in out and 'b = "it\'s"' in out and "d = f'{a}'" in out
    namespace: dict[str, object] = {}
    exec(compile(out, "<requoted>", "exec"), namespace)  # noqa: S102 - our own literals
    assert namespace["c"] == "say 'hi' \"now\""


def test_reindent_keeps_string_contents() -> None:
    code = 'def f():\n    """A\n    b."""\n    if f:\n        return 1\n'
    out = reindent(code, "\t")
    assert out == 'def f():\n\t"""A\n    b."""\n\tif f:\n\t\treturn 1\n'


def test_wrap_splits_inside_brackets_and_keeps_meaning() -> None:
    long = (
        "def f(values):\n"
        "    return sorted([value * 2 for value in values if value], key=abs, reverse=True)\n"
    )
    out = wrap_long_lines(long, 60, "    ")
    assert max(len(row) for row in out.splitlines()) <= 60
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(long))
    stuck = "x = '" + "a" * 90 + "'\n"
    assert wrap_long_lines(stuck, 79, "    ") == stuck  # a string cannot be broken


def test_renaming_is_scope_aware() -> None:
    code = (
        "def f(sum):\n    return sum + 1\n\n"
        "def g(values):\n    return sum(values)\n\n"
        "def h(first_value):\n    return f(sum=first_value)\n"
    )
    tree = ast.parse(code)
    mapping = plan_renames(tree, NameRules(case="camel", min_len=5))
    apply_renames(tree, mapping)
    out = ast.unparse(tree)
    assert "return sum(" in out  # the builtin in g is untouched
    namespace: dict[str, object] = {}
    exec(compile(out, "<renamed>", "exec"), namespace)  # noqa: S102 - our own code
    assert namespace["h"](2) == 3 and namespace["g"]([1, 2]) == 3  # type: ignore[operator]
    assert check_style(out, "naming_camel").passed and check_style(out, "var_min5").passed
