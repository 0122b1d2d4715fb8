"""Every VeriCode verifier with passing and failing examples, through the batched path.

All Ruff-based examples are checked in one call of the batched executor (a handful of
Ruff processes, not one per example); the custom checks are pure functions.
"""

import pytest

from adhere.core import RuffRun
from adhere.judging.verifiers._ruff import check_files
from adhere.scoring._ruff_batch import check_requests
from adhere.suites.vericode import CUSTOM_CHECKS, INSTRUCTIONS, by_id, extract_code

# instruction id → (passing code, failing code); default parameters.
EXAMPLES = {
    "style_1": ("x = 1\n", "import os, sys\n"),
    "style_2": ("import os\nimport sys\n", "import sys\nimport os\n"),
    "style_3": ("x = 1\n", 'x = "' + "word " * 20 + '"\n'),
    "style_4": ("x = [\n    1,\n]\n", "x = [\n    1\n]\n"),
    "style_5": ('x = "a"\n', "x = 'a'\n"),
    "style_6": (
        "def f():\n    value = 1\n    return value\n",
        "def f():\n    Value = 1\n    return Value\n",
    ),
    "style_7": ('open("f")\n', 'open("f", "r")\n'),
    "style_8": ("def f(x):\n    return x > LIMIT\n", "def f(x):\n    return x > 42\n"),
    "style_9": (
        "def f():\n    a, _b = g()\n    return a\n",
        "def f():\n    a, b = g()\n    return a\n",
    ),
    "logic_1": ("import os\n\nos.getcwd()\n", "import os\n"),
    "logic_2": (
        "def f(x):\n    if x:\n        return 1\n    return 0\n",
        "def f(x):\n    for y in x:\n        if y:\n            return 1\n    return 0\n",
    ),
    "logic_3": (
        "def f(x):\n    if x:\n        return 1\n    return 0\n",
        "def f(x):\n" + "    if x:\n        return 1\n" * 3 + "    return 0\n",
    ),
    "logic_4": (
        "def f(x):\n    return x\n",
        "def f(x):\n" + "    x.append(1)\n" * 7 + "    return x\n",
    ),
    "logic_5": (
        "def f(x):\n    a = x\n    b = a\n    return a + b\n",
        "def f(x):\n    a = x\n    b = a\n    c = b\n    return a + b + c\n",
    ),
    "logic_6": ("def f(x):\n    return x + 1\n", "def f(x):\n    y = x + 1\n    return y\n"),
    "logic_7": (
        "def f(x):\n    if x:\n        return 1\n    return 0\n",
        "def f(x):\n    for y in x:\n        if y:\n            return 1\n    return 0\n",
    ),
    "logic_8": (
        "def f(xs):\n    return [x + 1 for x in xs]\n",
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x + 1)\n    return out\n",
    ),
    "logic_9": (
        "def f(a, b):\n    if a:\n        return b\n    return a\n",
        "def f(a, b):\n    if a and b:\n        return b\n    return a\n",
    ),
    "doc_1": ("def f(x: int) -> int:\n    return x\n", "def f(x):\n    return x\n"),
    "doc_2": (
        'def f():\n    """Return one."""\n    return 1\n',
        'def f():\n    """' + "Return one " * 8 + '."""\n    return 1\n',
    ),
    "doc_3": (
        '"""Module."""\n\n\ndef f():\n    """Return one."""\n    return 1\n',
        '"""Module."""\n\n\ndef f():\n    return 1\n',
    ),
    "error_1": (
        "try:\n    g()\nexcept KeyError as err:\n    raise ValueError(m) from err\n",
        "try:\n    g()\nexcept KeyError:\n    raise ValueError(m)\n",
    ),
    "error_2": ("raise ValueError(msg)\n", 'raise ValueError("bad")\n'),
    "error_3": ("raise OSError(1)\n", "raise IOError(1)\n"),
    "error_4": ("raise ValueError(msg)\n", 'raise ValueError("a long message here")\n'),
    "library_1": (
        'from pathlib import Path\n\nPath("a") / "b"\n',
        'import os\n\nos.path.join("a", "b")\n',
    ),
    "library_2": (
        "import pandas as pd\n\nframe = pd.DataFrame()\n",
        "import pandas as pd\n\ndf = pd.DataFrame()\n",
    ),
}

# custom check → (passing input, failing inputs); doc_4 and doc_6 see the whole reply.
CUSTOM = {
    "doc_4": ("def f():\n    return 1\n", ["Here it is:\n```python\nx = 1\n```\n", "", "x = (\n"]),
    "doc_5": (
        "def f():\n    return '# not a comment'\n",
        [
            "x = 1  # note\n",
            'def f():\n    """Doc."""\n    return 1\n',
            '"""Module."""\n',
            "x = (\n",
        ],
    ),
    "doc_6": (
        '```python\nx = 1\n```\n\n```json\n{"summary": "s", "functions": []}\n```\n',
        [
            "```python\nx = 1\n```\n",
            'Sure:\n```python\nx = 1\n```\n```json\n{"a": 1}\n```',
            "```python\nx = 1\n```\n```json\n{not json}\n```",
            '```json\n{"a": 1}\n```\n```python\nx = 1\n```',
        ],
    ),
}


def _request(rid, instruction_id, code):
    instruction = by_id(instruction_id)
    return RuffRun(
        id=rid,
        code=code,
        select=list(instruction.select),
        config=instruction.ruff_config(),
        preview=instruction.preview,
    )


def test_every_instruction_has_examples():
    ruff_ids = {i.id for i in INSTRUCTIONS if i.custom is None}
    custom_ids = {i.id for i in INSTRUCTIONS if i.custom is not None}
    assert set(EXAMPLES) == ruff_ids and len(ruff_ids) == 27
    assert set(CUSTOM) == custom_ids == {"doc_4", "doc_5", "doc_6"}


def test_ruff_verifiers_pass_and_fail_in_one_batch():
    calls = []

    def counting(root, paths, options):
        calls.append(len(paths))
        return check_files(root, paths, options)

    requests = []
    for instruction_id, (good, bad) in EXAMPLES.items():
        requests.append(_request(f"{instruction_id}/pass", instruction_id, good))
        requests.append(_request(f"{instruction_id}/fail", instruction_id, bad))
        requests.append(_request(f"{instruction_id}/syntax", instruction_id, "def f(:\n"))
    found = {e.id: e for e in check_requests(requests, checker=counting)}
    for instruction_id in EXAMPLES:
        assert found[f"{instruction_id}/pass"].status == "pass", found[f"{instruction_id}/pass"]
        failing = found[f"{instruction_id}/fail"]
        assert failing.status == "fail", (instruction_id, failing)
        assert failing.data["count"] >= 1
        codes = {d["code"] for d in failing.data["diagnostics"]}
        assert codes <= set(by_id(instruction_id).select) | {
            c for c in codes if any(c.startswith(s) for s in by_id(instruction_id).select)
        }
        # unparsable code fails every Ruff-based instruction
        assert found[f"{instruction_id}/syntax"].status == "fail"
    # 81 requests, a few Ruff processes (one per compatible settings group)
    assert 1 <= len(calls) <= 6


@pytest.mark.parametrize("instruction_id", sorted(CUSTOM))
def test_custom_checks(instruction_id):
    instruction = by_id(instruction_id)
    check = CUSTOM_CHECKS[instruction.custom]
    good, bads = CUSTOM[instruction_id]
    assert check(good).passed, check(good)
    for bad in bads:
        outcome = check(bad)
        assert not outcome.passed and outcome.reason, bad


def test_extraction_rule():
    assert extract_code("text\n```python\na = 1\n```\nmore\n```\nb = 2\n```") == "a = 1\n"
    assert extract_code("```\nplain\n```") == "plain\n"
    assert extract_code("x = 1\n") == "x = 1\n"
    # an unclosed fence is not a block: the whole reply is the code
    assert extract_code("```python\nx = 1\n") == "```python\nx = 1\n"
    assert extract_code("") == ""
    # the first block with code in it, not an empty one
    assert extract_code("```python\n```\n```python\nb = 2\n```") == "b = 2\n"
