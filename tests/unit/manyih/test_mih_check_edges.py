"""ManyIH style checkers at their edges: name lengths and cases, operator kinds and gaps,
string delimiters, and the reasons each failure gives."""

import pytest

from adhere.suites.manyih import CHECKERS, STYLES, Code, check_style, check_styles
from adhere.suites.manyih._check_lexical import operator_uses, string_delimiter
from adhere.suites.manyih._check_names import CONSONANTS, name_ok


@pytest.mark.parametrize(
    ("style", "good", "bad"),
    [
        ("var_min3", ["abc", "abcdef"], ["ab", "a"]),
        ("var_min5", ["abcde", "abcdefgh"], ["abcd"]),
        ("var_max2", ["a", "ab"], ["abc"]),
        ("var_single", ["a", "_"], ["ab"]),
        ("naming_snake", ["a", "_tmp", "first_even", "x_2"], ["_1", "__", "firstEven", "A", "2a"]),
        ("naming_camel", ["a", "firstEven", "x2"], ["first_even", "First", "_a", "2a"]),
        ("naming_consonant_start", ["b", "Zed", "yes"], ["apple", "_b", "1b", "Éclair"]),
    ],
)
def test_names_at_the_edges_of_each_naming_style(style, good, bad) -> None:
    assert all(name_ok(style, name) for name in good), good
    assert not any(name_ok(style, name) for name in bad), bad


def test_consonants_are_the_21_letters_in_both_cases() -> None:
    assert len(CONSONANTS) == 42 and not set("aeiouAEIOU") & CONSONANTS


@pytest.mark.parametrize(
    ("style", "code", "reason"),
    [
        ("var_min3", "def f(abc):\n    ab = abc\n    return ab\n",
         "line 2: variable 'ab' is shorter than 3 characters"),
        ("var_min5", "def f(abcde):\n    return abcde\n\ndef g(ab):\n    return ab\n",
         "line 4: variable 'ab' is shorter than 5 characters"),
        ("var_max2", "def f(a):\n    abc = a\n    return abc\n",
         "line 2: variable 'abc' is longer than 2 characters"),
        ("var_single", "def f(ab):\n    return ab\n",
         "line 1: variable 'ab' is longer than 1 character"),
        ("naming_snake", "def f(a):\n    badName = a\n    return badName\n",
         "line 2: variable 'badName' is not snake_case"),
        ("naming_camel", "def f(a):\n    bad_name = a\n    return bad_name\n",
         "line 2: variable 'bad_name' is not camelCase"),
        ("naming_consonant_start", "def f(b):\n    item = b\n    return item\n",
         "line 2: variable 'item' does not start with a consonant"),
    ],
)  # fmt: skip
def test_naming_failures_name_the_first_variable_and_its_line(style, code, reason) -> None:
    outcome = check_style(code, style)
    assert (outcome.passed, outcome.reason) == (False, reason)


def uses(code: str) -> list[tuple[str, str, int | None, int | None]]:
    return [(u.tok.string, u.kind, u.left, u.right) for u in operator_uses(Code(code))]


def test_operator_kinds_and_the_spaces_around_them() -> None:
    assert uses("x = a+b\n") == [("=", "assign", 1, 1), ("+", "arith", 0, 0)]
    assert uses("x  +=  1\n") == [("+=", "assign", 2, 2)]
    assert uses("if (n := 1) >= 0:\n    pass\n") == [
        (":=", "assign", 1, 1),
        (">=", "compare", 1, 1),
    ]
    assert uses("x = a<<2|b\n") == [
        ("=", "assign", 1, 1),
        ("<<", "arith", 0, 0),
        ("|", "arith", 0, 0),
    ]
    assert uses("x = a @ b\n") == [("=", "assign", 1, 1), ("@", "arith", 1, 1)]


def test_unary_signs_unpacking_and_decorators_are_not_judged() -> None:
    assert uses("x = -1\n") == [("=", "assign", 1, 1)]
    assert uses("f(-2, *a, **k)\n") == []
    assert uses("return -x\n") == []  # after a keyword
    assert uses("x = a - -b\n") == [("=", "assign", 1, 1), ("-", "arith", 1, 1)]
    assert uses("@dec\ndef f(): pass\n") == []
    assert uses("x = (a) - b\n") == [("=", "assign", 1, 1), ("-", "arith", 1, 1)]  # after a closer
    assert uses("x = None - b\n")[1] == ("-", "arith", 1, 1)  # True/False/None are values
    assert uses("x = 'a' * 2\n")[1] == ("*", "arith", 1, 1)  # after a string
    assert uses("x = [~a]\n") == [("=", "assign", 1, 1)]


def test_defaults_keyword_arguments_and_annotations_are_free() -> None:
    assert uses("f(key=len)\n") == []
    assert uses("def f(a=1, *, b: int | None = None) -> int | None: pass\n") == []
    assert uses("g = lambda a=1: a\n") == [("=", "assign", 1, 1)]
    assert uses("g = lambda a=1: (b := a)\n") == [("=", "assign", 1, 1), (":=", "assign", 1, 1)]
    assert uses("d = {'k': f(x=1)}\n") == [("=", "assign", 1, 1)]
    assert uses("x: int = 1\n") == [("=", "assign", 1, 1)]
    assert uses("x = [a for a in b if a>1]\n") == [("=", "assign", 1, 1), (">", "compare", 0, 0)]


def test_a_side_at_a_line_break_is_not_judged() -> None:
    assert uses("x = (a +\n     b)\n") == [("=", "assign", 1, 1), ("+", "arith", 1, None)]
    assert uses("x = (a\n     + b)\n") == [("=", "assign", 1, 1), ("+", "arith", None, 1)]


@pytest.mark.parametrize(
    ("style", "code", "reason"),
    [
        ("op_space_around", "x = a+b\n", "line 1: no space before '+'"),
        ("op_space_around", "x = a +b\n", "line 1: no space after '+'"),
        ("op_space_none", "x=a +b\n", "line 1: space before '+'"),
        ("op_space_none", "x=a+ b\n", "line 1: space after '+'"),
        ("op_space_minimal", "x=1\n", "line 1: no space before '='"),
        ("op_space_minimal", "x = a + b\n", "line 1: space before '+'"),
        ("op_space_arithmetic", "x=a<b\n", "line 1: no space before '<'"),
    ],
)
def test_spacing_failures_name_the_operator_and_side(style, code, reason) -> None:
    outcome = check_style(code, style)
    assert (outcome.passed, outcome.reason) == (False, reason)


def test_assignments_are_free_under_the_arithmetic_style() -> None:
    assert check_style("x=a + b\ny += 1\n", "op_space_arithmetic").passed


@pytest.mark.parametrize(
    ("text", "prefix", "delimiter"),
    [("'a'", "", "'"), ('"a"', "", '"'), ("rb'''a'''", "rb", "'''"), ('f"""x"""', "f", '"""'),
     ("''", "", "'"), ('U"x"', "U", '"')],
)  # fmt: skip
def test_string_delimiters(text, prefix, delimiter) -> None:
    assert string_delimiter(text) == (prefix, delimiter)


@pytest.mark.parametrize(
    ("style", "code", "reason"),
    [
        ("quotes_single", 'x = "a"\n', "line 1: string '\"a\"' uses \""),
        ("quotes_double", "x = 1\ny = r'a'\n", "line 2: string \"r'a'\" uses '"),
        ("quotes_docstring_triple_double", "def f():\n    '''Doc.'''\n",
         "line 2: docstring delimited by '''"),
        ("quotes_docstring_triple_double", "def f():\n    'Doc.'\n",
         "line 2: docstring delimited by '"),
        ("quotes_single", 'x = "' + "a" * 40 + '"\n',
         "line 1: string '\"" + "a" * 29 + "' uses \""),
    ],
)  # fmt: skip
def test_quote_failures_name_the_string_and_its_delimiter(style, code, reason) -> None:
    outcome = check_style(code, style)
    assert (outcome.passed, outcome.reason) == (False, reason)


def test_the_other_quote_is_allowed_only_to_avoid_a_backslash() -> None:
    assert check_style('x = "it\'s"\n', "quotes_single").passed
    assert not check_style('x = "it\'s \\"x\\""\n', "quotes_single").passed  # both inside
    assert check_style("x = 'say \"hi\"'\n", "quotes_double").passed


def test_every_style_has_a_checker_and_unknown_styles_are_refused() -> None:
    assert set(CHECKERS) == set(STYLES) and len(CHECKERS) == 41
    with pytest.raises(KeyError, match="unknown ManyIH style 'nope'"):
        check_style("x = 1\n", "nope")
    broken = check_styles("def (:\n", ["indent_4", "quotes_single"])
    assert {sid: o.passed for sid, o in broken.items()} == {
        "indent_4": False,
        "quotes_single": False,
    }
    assert broken["indent_4"].reason == broken["quotes_single"].reason != ""
