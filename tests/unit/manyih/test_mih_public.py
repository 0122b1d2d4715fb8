"""Public-compatible checkers: the golden public verdicts, and every named public defect.

``public_golden.json.gz`` holds generated data only — programs and the public
checkers' verdicts on them, one character per style (``p``/``f``/``e``: the public
checker raises) — written by ``bench/manyih_public_diff.py --golden`` from a run of
the public checkers. Rerun that script (with the public repository at hand) to
regenerate it; the script itself asserts 100% agreement on the same corpus.
"""

import gzip
import json
from pathlib import Path

import pytest

from adhere.suites.manyih import (
    PUBLIC_CHECKERS,
    STYLES,
    check_public,
    check_style,
    public_verdict,
)

GOLDEN = Path(__file__).with_name("public_golden.json.gz")


def test_golden_public_verdicts_all_agree() -> None:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        golden = json.load(f)
    styles, programs, verdicts = golden["styles"], golden["programs"], golden["verdicts"]
    assert styles == sorted(STYLES) == sorted(PUBLIC_CHECKERS) and len(styles) == 41
    assert len(programs) == len(verdicts) >= 2000
    differ = []
    for program, expected in zip(programs, verdicts, strict=True):
        for sid, want in zip(styles, expected, strict=True):
            got = public_verdict(program, sid)
            if {None: "e", True: "p", False: "f"}[got] != want:
                differ.append((sid, program))
    assert differ == [], f"{len(differ)} of {len(programs) * 41} differ; first: {differ[:3]}"
    # the corpus exercises both outcomes of every style except line_unlimited
    for i, sid in enumerate(styles):
        seen = {v[i] for v in verdicts}
        assert seen >= ({"p"} if sid == "line_unlimited" else {"p", "f"}), sid


BUGS = [
    # (defect, style, code, public verdict, corrected verdict)
    (
        "'=' of '==' judged as an assignment",
        "op_space_minimal",
        "def f(a):\n    return a==2\n",
        False,
        True,
    ),  # noqa: E501
    (
        "'=' of '<=' judged as an assignment",
        "op_space_around",
        "def f(a):\n    return a <= 2\n",
        False,
        True,
    ),  # noqa: E501
    (
        "'=' of '<<=' judged alone",
        "op_space_around",
        "def f(a):\n    a <<= 2\n    return a\n",
        False,
        True,
    ),  # noqa: E501
    (
        "'+=' split into '+'",
        "op_space_arithmetic",
        "def f(a):\n    a+=1\n    return a\n",
        False,
        True,
    ),  # noqa: E501
    (
        "'<<' split into two '<'",
        "op_space_arithmetic",
        "def f(a):\n    return a << 1\n",
        False,
        True,
    ),  # noqa: E501
    ("'->' judged as '-'", "op_space_around", "def f(a: int) -> int:\n    return a\n", False, True),  # noqa: E501
    (
        "negative literal judged as binary",
        "op_space_around",
        "def f(a):\n    x = -1\n    return x\n",
        False,
        True,
    ),  # noqa: E501
    (
        "keyword argument judged as assignment",
        "op_space_around",
        "def f(a):\n    return sorted(a, key=len)\n",
        False,
        True,
    ),  # noqa: E501
    ("unpacking judged as binary", "op_space_around", "def f(a):\n    return g(*a)\n", False, True),  # noqa: E501
    (
        "a default judged as assignment",
        "op_space_around",
        "def f(a=1):\n    return a\n",
        False,
        True,
    ),  # noqa: E501
    (
        "a ')' in defaults hides the def",
        "doc_required",
        "def f(a=g()):\n    return a\n",
        True,
        False,
    ),  # noqa: E501
    ("a tab is not a space", "op_space_around", "def f(a, b):\n\treturn a +\tb\n", False, True),
    (
        "Yoda 'None is a' is no 'is' comparison",
        "singleton_eq",
        "def f(a):\n    return None is a\n",
        True,
        False,
    ),  # noqa: E501
    (
        "comparisons are not judged by around/none/minimal",
        "op_space_around",
        "def f(a, b):\n    return a<b\n",
        True,
        False,
    ),  # noqa: E501
    (
        "a literal return fails return_variable",
        "return_variable",
        "def f(a):\n    return 0\n",
        False,
        True,
    ),  # noqa: E501
    ("the other quote to avoid escapes fails", "quotes_double", "x = 'say \"hi\"'\n", False, True),  # noqa: E501
    (
        "any triple-single literal fails triple-double",
        "quotes_docstring_triple_double",
        "x = '''abc'''\n",
        False,
        True,
    ),  # noqa: E501
    (
        "a hinted signature hides the docstring",
        "doc_none",
        'def f(a: int) -> int:\n    """Doc."""\n    return a\n',
        True,
        False,
    ),  # noqa: E501
    ("text in strings read as code", "singleton_is", "s = 'x == None'\n", False, True),
    (
        "text in strings read as code",
        "singleton_eq",
        "def f(a):\n    return 'is None'\n",
        False,
        True,
    ),  # noqa: E501
    (
        "return style only at the top level",
        "return_variable",
        "def f(a):\n    if a:\n        return a + 1\n    return a\n",
        True,
        False,
    ),  # noqa: E501
    (
        "return style only at the top level",
        "return_direct",
        "def f(a):\n    if a:\n        r = a\n        return r\n    return 0\n",
        True,
        False,
    ),  # noqa: E501
    (
        "running off the end is not a bare return",
        "return_explicit_none",
        "def f(a):\n    if a:\n        return None\n",
        True,
        False,
    ),  # noqa: E501
    (
        "UPPER_CASE passes as snake_case",
        "naming_snake",
        "MAX_SIZE = 10\ndef f(a):\n    return a\n",
        True,
        False,
    ),  # noqa: E501
    ("lambda parameters are not checked", "naming_snake", "f = lambda aB: aB\n", True, False),
    (
        "except-as names are not checked",
        "naming_snake",
        "try:\n    pass\nexcept E as BadName:\n    pass\n",
        True,
        False,
    ),  # noqa: E501
    (
        "*args / keyword-only parameters are not checked",
        "naming_camel",
        "def f(aB, *my_args):\n    return aB\n",
        True,
        False,
    ),  # noqa: E501
    (
        "parameters are not checked for consonants",
        "naming_consonant_start",
        "def f(apple):\n    return apple\n",
        True,
        False,
    ),  # noqa: E501
    (
        "names starting with '_' have no length",
        "var_max2",
        "def f(ab):\n    for _long in ab:\n        pass\n",
        True,
        False,
    ),  # noqa: E501
    (
        "a def without parameters fails types_full",
        "types_full",
        "def f() -> int:\n    return 1\n",
        False,
        True,
    ),  # noqa: E501
    (
        "*args hints are not argument hints",
        "types_full",
        "def f(*args: int) -> int:\n    return 1\n",
        False,
        True,
    ),  # noqa: E501
    (
        "one annotated parameter is enough",
        "types_args_required",
        "def f(self, a: int, b):\n    return a\n",
        True,
        False,
    ),  # noqa: E501
    (
        "keyword-only hints are not hints",
        "types_none",
        "def f(a, *, b: int):\n    return a\n",
        True,
        False,
    ),  # noqa: E501
    ("an unclosed bracket passes quotes", "quotes_single", 'x = (1,\ny = "a"\n', True, False),
    (
        "prefixed triple quotes are not docstrings",
        "quotes_double",
        "x = r'''abc'''\n",
        False,
        False,
    ),  # noqa: E501
    ("triple-quoted literals are exempt", "quotes_single", 'y = """b"""\n', True, False),
    (
        "continuation rows are indentation",
        "indent_4",
        "def f(a):\n    b = [1,\n         2]\n    return b\n",
        False,
        True,
    ),  # noqa: E501
    (
        "any 'apache' is a notice",
        "license_apache",
        "def f(apache):\n    return apache\n",
        True,
        False,
    ),  # noqa: E501
    (
        "SPDX MIT is no notice",
        "license_mit",
        "# SPDX-License-Identifier: MIT\ndef f(a):\n    return a\n",
        False,
        True,
    ),  # noqa: E501
    (
        "'license' in a string is a notice",
        "license_none",
        "def f(a):\n    return 'license'\n",
        False,
        True,
    ),  # noqa: E501
    ("any multi-line triple-quoted literal", "doc_oneline", "x = '''\nabc'''\n", False, True),
    ("class docstrings count for doc_none", "doc_none", "class C:\n    '''Doc.'''\n", False, True),
    (
        "rows inside strings are blank lines",
        "blank_internal_none",
        "def f(a):\n    s = '''\n\n'''\n    return s\n",
        False,
        True,
    ),  # noqa: E501
]


@pytest.mark.parametrize(("defect", "style", "code", "public", "corrected"), BUGS,
                         ids=[b[0] + ":" + b[1] for b in BUGS])  # fmt: skip
def test_named_public_defects(
    defect: str, style: str, code: str, public: bool, corrected: bool
) -> None:
    assert public_verdict(code, style) is public, defect
    assert check_public(code, style).passed is public
    assert check_style(code, style).passed is corrected, defect


def test_unparseable_code_passes_the_public_tree_checkers_but_never_the_corrected() -> None:
    code = "def f(a)\n    return a\n"
    for sid in ("naming_snake", "var_min5", "types_full", "return_direct", "blank_internal_one"):
        assert public_verdict(code, sid) is True
        assert check_style(code, sid).passed is False


def test_a_raising_public_checker_is_an_error_never_a_pass() -> None:
    code = "def f(a):\n    if a:\n        return 1\n  return 2\n"  # inconsistent dedent
    assert public_verdict(code, "quotes_single") is None
    outcome = check_public(code, "quotes_single")
    assert not outcome.passed and "raises" in outcome.reason
    with pytest.raises(KeyError):
        public_verdict(code, "no_such_style")
