"""How the oracle writes its reply, and how the noisy double breaks one item on purpose. Pure.

The built-in reference solutions are written to satisfy every instruction at its
default parameters at once (module and function docstrings of one imperative line,
full annotations, double quotes, short lines, at most one decision point and two locals
per function, no magic values, pathlib, chained exceptions with messages in variables).
So the oracle only changes the *form* of its reply for the instructions that ask for
one: bare code (doc_4), a python block and a json block (doc_6), no comments or
docstrings (doc_5); otherwise it answers with a sentence and one fenced block.

What it cannot do: rewrite code for parameters stricter than the defaults (a line
length below the longest line, fewer statements or branches than the solution has),
or answer tasks without a reference solution (LiveCodeBench-style files carry none).

``wrong(key)`` for an instruction id appends a small helper that violates exactly
that instruction where possible (:func:`violation`); for ``tests`` it applies the
task's mutation, or renames the entry point.
"""

from __future__ import annotations

import ast
import io
import json
import tokenize
from collections.abc import Callable, Mapping, Sequence

from adhere.suites.vericode._instruction import ParamValue
from adhere.suites.vericode._task import Task

__all__ = ["NO_SOLUTION", "break_solution", "render_reply", "strip_docs", "violation"]

NO_SOLUTION = "I cannot solve this task."
"""The oracle's reply to a task without a reference solution (it fails the tests)."""

Active = Sequence[tuple[str, Mapping[str, ParamValue]]]
"""Instruction ids in force at a turn, with their parameters."""


def _helper(name: str, doc: str, body: str, signature: str = "value: int", ret: str = "int") -> str:
    lines = "\n".join(f"    {line}" if line else "" for line in body.splitlines())
    return f'def {name}({signature}) -> {ret}:\n    """{doc}"""\n{lines}\n'


def _ifs(count: int, nested: bool) -> str:
    body = []
    for depth in range(count):
        indent = "    " * depth if nested else ""
        body.append(f"{indent}if value:")
        if not nested:
            body.append("    return 1")
    if nested:
        body.append("    " * count + "return 1")
    body.append("return 0")
    return "\n".join(body)


def _number(params: Mapping[str, ParamValue], name: str, default: int) -> int:
    value = params.get(name, default)
    return value if isinstance(value, int) else default


def violation(instruction_id: str, params: Mapping[str, ParamValue]) -> str:
    """Module-level code that breaks ``instruction_id`` (empty for reply-level ones)."""
    n = _number
    if instruction_id == "style_1":
        return "SPACING = 1 \n"
    if instruction_id == "style_2":
        return _helper(
            "_platform_tag", "Return a tag naming the platform.",
            "import sys\nimport os\n\nreturn os.sep + sys.platform", "", "str",
        )  # fmt: skip
    if instruction_id == "style_3":
        limit = n(params, "line_length", 79)
        words = ("note " * limit)[: limit - 7]
        return f'NOTE = "{words}"\n'
    if instruction_id == "style_4":
        return "LIMITS = (\n    1,\n    2\n)\n"
    if instruction_id == "style_5":
        return "LABEL = 'single'\n"
    if instruction_id == "style_6":
        return _helper(
            "_scaled", "Return the value scaled.", "Factor = [10]\nreturn value * Factor[0]"
        )
    if instruction_id == "style_7":
        return _helper(
            "_read_text", "Return the text of a file.",
            'with open(name, "r", encoding="utf-8") as handle:\n    return handle.read()',
            "name: str", "str",
        )  # fmt: skip
    if instruction_id == "style_8":
        return _helper(
            "_is_large", "Tell whether the value is large.", "return value > 1000", ret="bool"
        )
    if instruction_id == "style_9":
        return _helper(
            "_quotient", "Return the quotient by seven.",
            "quotient, remainder = divmod(value, 7)\nreturn quotient",
        )  # fmt: skip
    if instruction_id == "logic_1":
        return _helper("_unused", "Compute a value never used.", "leftover = 1", "", "None")
    if instruction_id == "logic_2":
        depth = n(params, "max_nested_blocks", 1) + 1
        return _helper("_nested", "Return one when the nested tests hold.", _ifs(depth, True))
    if instruction_id == "logic_3":
        count = n(params, "max_branches", 2) + 1
        return _helper("_branchy", "Return a code for the value.", _ifs(count, False))
    if instruction_id == "logic_4":
        count = n(params, "max_statements", 6) + 1
        body = "values = [value]\n" + "values.append(value)\n" * count + "return len(values)"
        return _helper("_long", "Return a count built step by step.", body)
    if instruction_id == "logic_5":
        count = n(params, "max_locals", 2) + 1
        names = [f"part_{i}" for i in range(count)]
        body = "".join(f"{name} = value + {i}\n" for i, name in enumerate(names))
        return _helper(
            "_many_locals", "Return a sum of parts.", body + f"return {' + '.join(names)}"
        )
    if instruction_id == "logic_6":
        return _helper("_doubled", "Return twice the value.", "result = value * 2\nreturn result")
    if instruction_id == "logic_7":
        count = n(params, "max_complexity", 2)
        return _helper("_complex", "Return a code for the value.", _ifs(count, False))
    if instruction_id == "logic_8":
        return _helper(
            "_copied", "Return a copy of the items.",
            "result = []\nfor item in items:\n    result.append(item + 1)\nreturn result",
            "items: list[int]", "list[int]",
        )  # fmt: skip
    if instruction_id == "logic_9":
        count = n(params, "max_bool_expr", 1) + 1
        test = " and ".join(f"flags[{i}]" for i in range(count))
        return _helper(
            "_all_set", "Tell whether the leading flags are set.",
            f"if {test}:\n    return True\nreturn False", "flags: list[bool]", "bool",
        )  # fmt: skip
    if instruction_id == "doc_1":
        return 'def _identity(value):\n    """Return the value unchanged."""\n    return value\n'
    if instruction_id == "doc_2":
        limit = n(params, "line_length", 72)
        words = ("Return the value " + "unchanged " * limit)[: limit - 10].rstrip()
        doc = words + "s" * (limit - 10 - len(words)) + "."  # its line: one past the limit
        return _helper("_same", doc, "return value")
    if instruction_id == "doc_3":
        return "def helper_value() -> int:\n    return 1\n"
    if instruction_id == "doc_5":
        return "# A note for the reader.\n"
    if instruction_id == "error_1":
        return _helper(
            "_parse_number", "Return the integer in the text.",
            'try:\n    return int(text)\nexcept ValueError:\n    msg = "not a number"\n'
            "    raise TypeError(msg)",
            "text: str",
        )  # fmt: skip
    if instruction_id == "error_2":
        return _helper("_reject", "Refuse the value.", 'raise ValueError("refused")', ret="None")
    if instruction_id == "error_3":
        return _helper(
            "_check",
            "Refuse negative values.",
            "if value < 0:\n    raise IOError(value)",
            ret="None",
        )
    if instruction_id == "error_4":
        return _helper(
            "_refuse", "Refuse every value.", 'raise ValueError(f"the value {value} is refused")',
            ret="None",
        )  # fmt: skip
    if instruction_id == "library_1":
        return _helper(
            "_joined", "Return the name inside the data folder.",
            'import os\n\nreturn os.path.join("data", name)', "name: str", "str",
        )  # fmt: skip
    if instruction_id == "library_2":
        return _helper(
            "_frame_values", "Return the values of an empty frame.",
            "import pandas as pd\n\ndf = pd.DataFrame()\nreturn df.values", "", "object",
        )  # fmt: skip
    return ""


def break_solution(task: Task, code: str) -> str:
    """The solution with its mutation applied (else the entry point renamed)."""
    if task.mutation is not None and task.mutation[0] in code:
        old, new = task.mutation
        return code.replace(old, new, 1)
    name = task.entry_point or "solution"
    return code.replace(f"def {name}(", f"def {name}_draft(", 1)


def strip_docs(code: str) -> str:
    """The code without comments and docstrings (a body left empty gets ``pass``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    lines = code.splitlines(keepends=True)
    drop: set[int] = set()
    replace: dict[int, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = node.body[0] if node.body else None
        if not (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            continue
        span = range(first.lineno - 1, (first.end_lineno or first.lineno))
        drop.update(span)
        if len(node.body) == 1:
            indent = lines[first.lineno - 1][: first.col_offset]
            replace[first.lineno - 1] = f"{indent}pass\n"
    comments: dict[int, int] = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0] - 1] = token.start[1]
    out = []
    for index, line in enumerate(lines):
        if index in replace:
            out.append(replace[index])
            continue
        if index in drop:
            continue
        if index in comments:
            kept = line[: comments[index]].rstrip()
            if not kept:
                continue
            line = kept + "\n"
        out.append(line)
    return "".join(out).lstrip("\n")


def _functions(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    return [node.name for node in tree.body if isinstance(node, kinds)]


def render_reply(task: Task, active: Active, wrong: Callable[[str], bool]) -> str:
    """The oracle's reply at a turn where ``active`` instructions are in force."""
    if task.solution is None:
        return NO_SOLUTION
    ids = {instruction_id for instruction_id, _ in active}
    code = task.solution
    if wrong("tests"):
        code = break_solution(task, code)
    extra = [violation(i, p) for i, p in active if wrong(i) and i != "doc_5"]
    code = code.rstrip("\n") + "\n"
    for snippet in (s for s in extra if s):
        code += "\n\n" + snippet
    if "doc_5" in ids:
        code = strip_docs(code)
        if wrong("doc_5"):
            code += "\n\n" + violation("doc_5", {})
    if "doc_4" in ids and not wrong("doc_4"):
        return code
    if "doc_6" in ids and not wrong("doc_6"):
        summary = {"summary": f"Solves {task.id} in Python.", "functions": _functions(code)}
        return f"```python\n{code}```\n\n```json\n{json.dumps(summary, indent=2)}\n```\n"
    return f"Here is the solution.\n\n```python\n{code}```\n"
