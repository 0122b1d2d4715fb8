"""The 41 style checkers: passing and failing examples for every style.

Table-driven: each style has code that satisfies it and code that does not. The
cases marked "public defect" are the known failure modes of the public checkers
(SUITES.md §3): ``->`` counted as an operator, negative literals and keyword
arguments tripping the spacing checks, and text inside strings and comments being
read as code. adhere's checkers read tokens and syntax trees, so those pass here.
"""

import pytest

from adhere.suites.manyih import CHECKERS, STYLES, Code, check_style, check_styles

T = "\t"

CASES: dict[str, tuple[list[str], list[str]]] = {
    # indentation
    "indent_2": (
        ["def f(x):\n  if x:\n    return 1\n  return 2\n",
         'def f():\n  """Doc.\n\n      indented text inside a docstring is not indentation\n  """\n'
         "  return 1\n",
         "def f(a,\n      b):\n  return a\n"],
        ["def f(x):\n    return 1\n", f"def f(x):\n{T}return 1\n",
         "def f(x):\n  if x:\n   return 1\n"],
    ),
    "indent_4": (
        ["def f(x):\n    if x:\n        return 1\n", "x = 1\n"],
        ["def f(x):\n  return 1\n", f"def f(x):\n{T}return 1\n"],
    ),
    "indent_tab": (
        [f"def f(x):\n{T}if x:\n{T}{T}return 1\n",
         f"def f(x):\n{T}return g(x,\n{T}         x)\n"],  # tab, then alignment spaces
        ["def f(x):\n    return 1\n", f"def f(x):\n{T}if x:\n{T}    return 1\n"],
    ),
    "indent_spaces": (
        ["def f(x):\n   return 1\n", "def f(x):\n  return 1\n"],
        [f"def f(x):\n{T}return 1\n", f"def f(x):\n    return g(1,\n{T}2)\n"],
    ),
    # quotes
    "quotes_single": (
        ["x = 'a'\n", "x = \"it's\"\n",  # the other quote avoids a backslash
         'def f():\n    """Docstrings have their own style."""\n    return \'a\'\n',
         "x = 'a'  # a \"comment\" is not a string\n", "x = r'\\d'\n"],
        ['x = "a"\n', "x = 'a' + \"b\"\n", 'x = f"{1}"\n'],
    ),
    "quotes_double": (
        ['x = "a"\n', "x = 'say \"hi\"'\n", "def f():\n    '''Doc.'''\n    return \"a\"\n"],
        ["x = 'a'\n", "x = b'a'\n"],
    ),
    "quotes_docstring_triple_double": (
        ['def f():\n    """Doc."""\n', "x = 'no docstrings at all'\n",
         '"""Module."""\nx = \'\'\'a triple-quoted string that is no docstring\'\'\'\n'],
        ["def f():\n    '''Doc.'''\n", "'''Module.'''\n", "class C:\n    'Doc.'\n"],
    ),
    # naming
    "naming_snake": (
        ["def f(first_even):\n    total_2 = first_even\n    return total_2\n",
         "def f(a):\n    return sorted(a, key=len)\n",  # public defect: kwarg names
         "def f(a):\n    return 'camelCase inside a string'\n",
         "def f(a):\n    self_check = a.someAttribute\n    return self_check\n"],
        ["def f(firstEven):\n    return firstEven\n",
         "def f(a):\n    Total = a\n    return Total\n",
         "def f(a):\n    return [sumOf for sumOf in a]\n"],
    ),
    "naming_camel": (
        ["def diff_even_odd(firstEven):\n    x = firstEven\n    return x\n",
         "def f(a):\n    return sorted(a, key_func=len)\n"],  # kwarg names are not variables
        ["def f(first_even):\n    return first_even\n",
         "def f(a):\n    for First in a:\n        pass\n",
         "def f(a):\n    try:\n        pass\n    except ValueError as bad_value:\n        pass\n"],
    ),
    "naming_consonant_start": (
        ["def f(numbers):\n    total = 0\n    return total\n", "def f(y):\n    return y\n",
         "def f(num):\n    return sorted(num, key=abs)\n"],
        ["def f(items):\n    return items\n", "def f(n):\n    _tmp = n\n    return _tmp\n",
         "def f(n):\n    return [e for e in n]\n"],
    ),
    # operator spacing
    "op_space_around": (
        # public defect: ->
        ["def f(a: int, b: int = 2) -> int:\n    x = a + b\n    return x * -1\n",
         "x = -1\ny = x ** -2\nz = sorted([x], key=abs)\n",  # negative literals, kwargs
         "x = 1  # a+b in a comment\ns = 'a+b'\n",  # strings and comments
         "x = [1,\n     2] + [\n    3]\n", "def f(*args, **kw):\n    return g(*args, **kw)\n",
         "x += 1\nif (n := 1) > 0:\n    pass\n"],
        ["x = 1+2\n", "x=1\n", "x = a == b and a<b\n", "x -= 1\nx = a [0]+b\n"],
    ),
    "op_space_none": (
        ["def f(a: int, b: int=2) -> int:\n    x=a+b\n    return x*-1\n",  # public defect: ->
         "x=-1\ny=f(-2, key=-3)\n", "s='a + b'  # a + b\n", "x+=1\n",
         "def f(a: 'int | None'=None) -> int | None:\n    return a\n"],  # annotations
        ["x = 1\n", "x=a + b\n", "x=a<= b\n", "x+= 1\n"],
    ),
    "op_space_minimal": (
        ["x = a+b\ny = a<b\nz = f(key=1)\n", "def f(a, b=1) -> int:\n    c = a*-b\n    return c\n",
         "x += a*2\n"],
        ["x = a + b\n", "x=a+b\n", "x = a < b\n"],
    ),
    "op_space_arithmetic": (
        ["x=a + b\ny = a < b\n", "x = -1\n", "def f(a, b=1) -> int:\n    return a * b\n",
         "print(f'{a+b}')\n"],
        ["x = a+b\n", "x = a<b\n", "x = a % 2==0\n"],
    ),
    # type hints
    "types_full": (
        ["def f(a: int, *args: int, **kw: str) -> int:\n    return a\n",
         "class C:\n    def m(self, x: int) -> None:\n        pass\n",
         "square = lambda x: x * x\n"],
        ["def f(a: int):\n    return a\n", "def f(a, b: int) -> int:\n    return a\n",
         "def f(*args) -> int:\n    return 1\n"],
    ),
    "types_none": (
        ["def f(a, b=1):\n    return a\n", "x = 'a: int -> str'\n"],
        ["def f(a: int):\n    return a\n", "def f(a) -> int:\n    return a\n",
         "def f(a):\n    total: int = a\n    return total\n"],
    ),
    "types_args_only": (
        ["def f(a: int, b: list) :\n    return a\n", "class C:\n    def m(self):\n        pass\n"],
        ["def f(a: int) -> int:\n    return a\n", "def f(a):\n    return a\n"],
    ),
    "types_args_required": (
        ["def f(a: int) -> int:\n    return a\n", "def f(a: int):\n    return a\n"],
        ["def f(a) -> int:\n    return a\n", "def f(a: int, *rest):\n    return a\n"],
    ),
    # variable name length
    "var_min3": (
        ["def f(num):\n    total = num\n    return total\n",
         "def f(abc):\n    return g(abc, k=1)\n",
         "def f(abc):\n    for _ in abc:\n        pass\n"],
        ["def f(n):\n    return n\n", "def f(num):\n    return [i for i in num]\n"],
    ),
    "var_single": (
        ["def f(a):\n    b = a\n    return b\n", "def f(a):\n    return sorted(a, key=len)\n"],
        ["def f(ab):\n    return ab\n", "def f(a):\n    with open(a) as fh:\n        pass\n"],
    ),
    "var_min5": (
        ["def f(numbers):\n    total = numbers\n    return total\n"],
        ["def f(nums):\n    return nums\n", "def f(values):\n    x = values\n    return x\n"],
    ),
    "var_max2": (
        ["def f(ab):\n    c = ab\n    return c\n", "def f(a):\n    return a.upper()\n"],
        ["def f(abc):\n    return abc\n", "def f(a):\n    (b, cde) = a\n    return b\n"],
    ),
    # license
    "license_mit": (
        ["# SPDX-License-Identifier: MIT\nx = 1\n", "# Licensed under the MIT License.\nx = 1\n",
         '"""Copyright 2024. MIT License."""\nx = 1\n',
         "# Permission is hereby granted, free of charge, to any person\nx = 1\n"],
        ["x = 1\n", "x = 'MIT License'\n",  # public defect: a string is not a notice
         "# Licensed under the Apache License, Version 2.0\nx = 1\n"],
    ),
    "license_apache": (
        ["# Licensed under the Apache License, Version 2.0 (the 'License');\nx = 1\n",
         "# SPDX-License-Identifier: Apache-2.0\nx = 1\n",
         "# Licensed under the Apache License,\n# Version 2.0.\nx = 1\n"],
        ["x = 1\n", "# MIT License\nx = 1\n", "s = 'Apache License, Version 2.0'\n"],
    ),
    "license_none": (
        ["x = 1\n", "def license_key(license):\n    return 'license'\n",  # names and strings
         "# Copyright 2024 Someone\nx = 1\n"],
        ["# MIT License\nx = 1\n", '"""Licensed under the Apache License 2.0."""\n',
         "# SPDX-License-Identifier: BSD-3-Clause\n"],
    ),
    # function docstrings
    "doc_required": (
        ['def f():\n    """Do it."""\n    return 1\n',
         "def f():\n    '''Do it.'''\n    def g():\n        \"\"\"Inner.\"\"\"\n    return g\n"],
        ["def f():\n    return 1\n", "def f():\n    'Do it.'\n    return 1\n",
         'def f():\n    """Do it."""\n    def g():\n        return 1\n    return g\n'],
    ),
    "doc_none": (
        ['"""A module docstring is fine."""\ndef f():\n    return 1\n',
         "def f():\n    x = 'str'\n"],
        ['def f():\n    """Do it."""\n', "class C:\n    def m(self):\n        'Doc.'\n"],
    ),
    "doc_oneline": (
        ['def f():\n    """Do it."""\n', "def f():\n    return 1\n"],
        ['def f():\n    """Do it.\n\n    More.\n    """\n'],
    ),
    # blank lines inside function bodies
    "blank_internal_none": (
        ["def f():\n    x = 1\n    return x\n\n\ndef g():\n    pass\n",
         'def f():\n    """Doc.\n\n    A blank line in a docstring is no blank line."""\n'
         "    return 1\n"],
        ["def f():\n    x = 1\n\n    return x\n", "def f():\n\n    return 1\n"],
    ),
    "blank_internal_one": (
        ["def f():\n    x = 1\n\n    return x\n",
         "def f():\n    x = 1\n\n    def g():\n        y = 2\n\n        return y\n    return g\n"],
        ["def f():\n    return 1\n", "def f():\n    x = 1\n\n    y = 2\n\n    return x\n"],
    ),
    "blank_internal_required": (
        ["def f():\n    x = 1\n\n    y = 2\n\n    return x\n", "def f():\n\n    return 1\n"],
        ["def f():\n    return 1\n",
         "def f():\n    x = 1\n\n    def g():\n        return 2\n    return g\n"],
    ),
    # return style
    "return_variable": (
        ["def f(a):\n    total = a + 1\n    return total\n",
         "def f(a):\n    if a:\n        return -1\n"
         "    return None\n"],
        ["def f(a):\n    return a + 1\n", "def f(a):\n    return (a, a)\n"],
    ),
    "return_direct": (
        ["def f(a):\n    return a + 1\n",
         "def f(a):\n    out = []\n    for x in a:\n        out.append(x)\n    return out\n"],
        ["def f(a):\n    total = a + 1\n    return total\n",
         "def f(a):\n    if a:\n        r: int = 1\n        return r\n    return 0\n"],
    ),
    "return_explicit_none": (
        ["def f(a):\n    if a:\n        return None\n    return None\n",
         "def f(a):\n    return a\n", "def f(a):\n    if a:\n        return 1\n    else:\n"
         "        raise ValueError(a)\n", "def f():\n    while True:\n        return 1\n"],
        ["def f(a):\n    if a:\n        return\n    return None\n", "def f(a):\n    print(a)\n",
         "def f(a):\n    for x in a:\n        if x:\n            return x\n",
         "def f():\n    while True:\n        break\n"],
    ),
    # singleton comparisons
    "singleton_is": (
        ["def f(a):\n    return a is None\n", "x = 'a == None'  # b != None\n",
         "def f(a):\n    return a == 0\n"],
        ["def f(a):\n    return a == None\n", "def f(a):\n    return True != a\n"],
    ),
    "singleton_eq": (
        ["def f(a):\n    return a == None\n", "def f(a):\n    return a is b\n"],
        ["def f(a):\n    return a is not None\n", "def f(a):\n    return False is a\n"],
    ),
    "singleton_variable_first": (
        ["def f(a):\n    return a is None\n", "def f(a):\n    return a != True\n",
         "def f(a):\n    return None in a\n"],
        ["def f(a):\n    return None is a\n", "def f(a):\n    return True == a\n"],
    ),
    "singleton_yoda": (
        ["def f(a):\n    return None is a\n", "def f(a):\n    return a < 3\n"],
        ["def f(a):\n    return a is None\n", "def f(a):\n    return 0 < a != False\n"],
    ),
    # line length
    "line_79": (
        ["x = 1\n", "x = '" + "a" * 73 + "'\n"],
        ["x = '" + "a" * 74 + "'\n", "x = 1  # " + "c" * 80 + "\n"],
    ),
    "line_120": (
        ["x = '" + "a" * 100 + "'\n"],
        ["x = '" + "a" * 120 + "'\n"],
    ),
    "line_unlimited": (
        ["x = '" + "a" * 500 + "'\n"],
        ["def f(:\n    pass\n", ""],  # only unusable code fails
    ),
}  # fmt: skip


def test_every_style_has_cases_both_ways() -> None:
    assert len(STYLES) == 41 and set(CHECKERS) == set(STYLES)
    assert set(CASES) == set(STYLES)
    for style, (good, bad) in CASES.items():
        assert good and bad, style


@pytest.mark.parametrize("style", sorted(CASES))
def test_passing_examples(style: str) -> None:
    for code in CASES[style][0]:
        outcome = check_style(code, style)
        assert outcome.passed, f"{style} should pass:\n{code}\n{outcome.reason}"


@pytest.mark.parametrize("style", sorted(CASES))
def test_failing_examples(style: str) -> None:
    for code in CASES[style][1]:
        outcome = check_style(code, style)
        assert not outcome.passed, f"{style} should fail:\n{code}"
        assert outcome.reason


def test_arrow_is_not_an_operator() -> None:
    """Public defect: counting ``->`` made four spacing styles fail annotated code."""
    annotated = "def f(a: int) -> int:\n    return a\n"
    for style in ("op_space_around", "op_space_none", "op_space_minimal", "op_space_arithmetic"):
        assert check_style(annotated, style).passed, style


def test_negative_literals_and_keyword_arguments() -> None:
    """Public defect: unary minus and ``key=value`` read as binary operators/assignments."""
    spaced = "def f(xs):\n    return sorted(xs, key=abs, reverse=-1 < 0)[-1] * -2\n"
    assert check_style(spaced, "op_space_around").passed
    tight = "def f(xs):\n    return sorted(xs, key=abs, reverse=-1<0)[-1]*-2\n"
    assert check_style(tight, "op_space_none").passed
    assert check_style(tight, "op_space_minimal").passed
    # keyword names bind nothing: only the parameter is judged
    assert not check_style("def f(xs):\n    return g(key=-1)\n", "var_min3").passed
    assert check_style("def f(abc):\n    return g(k=-1)\n", "var_min3").passed
    assert check_style("def f(a):\n    return g(key=-1)\n", "var_single").passed


def test_strings_and_comments_are_not_code() -> None:
    """Public defect: regexes over raw text judged strings and comments."""
    code = (
        "def f(value):\n"
        "    note = 'x == None and y=1+2; MIT License; def g(a: int) -> int'\n"
        "    # is None == True, x=1+2, licence text, camelCase\n"
        "    return note\n"
    )
    verdicts = check_styles(
        code, ["singleton_is", "op_space_around", "license_none", "license_mit", "naming_snake"]
    )
    assert verdicts["singleton_is"].passed
    assert verdicts["op_space_around"].passed
    assert not verdicts["license_none"].passed  # "licence" in a comment is a notice
    assert not verdicts["license_mit"].passed  # "MIT License" in a string is not
    assert verdicts["naming_snake"].passed


def test_unparsable_or_empty_code_fails_every_style() -> None:
    for code in ("", "   \n", "def f(:\n"):
        outcomes = check_styles(code, STYLES)
        assert not any(o.passed for o in outcomes.values())
        assert all(o.reason for o in outcomes.values())


def test_one_parse_serves_many_checks() -> None:
    code = Code("def f(a):\n    return a + 1\n")
    first = check_styles(code, ["op_space_around", "op_space_none"])
    assert code.memo("operator_uses", list) is not None  # cached, not recomputed
    assert first["op_space_around"].passed and not first["op_space_none"].passed


def test_unknown_style() -> None:
    with pytest.raises(KeyError, match="nope"):
        check_style("x = 1\n", "nope")


def test_reasons_name_the_line() -> None:
    reason = check_style("x = 1\ny = 2+3\n", "op_space_around").reason
    assert reason.startswith("line 2:") and "'+'" in reason
