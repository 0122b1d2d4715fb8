"""Type hints for the oracle's annotations, inferred from the literals in the tests.

For the function the tests call, each positional parameter's type is the common type
of the literal arguments the tests pass (``[1, 2]`` → ``list``; ``int`` and ``float``
together → ``float``), and the return type that of the literals the result is
compared with (``assert f(x) == 3`` → ``int``; ``assert f(x)`` / ``assert not f(x)``
→ ``bool``; ``math.isclose(f(x), y)`` → ``float``). Anything else is ``Any``. The
annotations are plausible, not verified: Python does not check them at run time.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from adhere.suites.manyih._code import parse_quietly

__all__ = ["Hints", "infer_hints"]

_NAMES = (
    (bool, "bool"),
    (int, "int"),
    (float, "float"),
    (complex, "complex"),
    (str, "str"),
    (bytes, "bytes"),
    (list, "list"),
    (tuple, "tuple"),
    (dict, "dict"),
    (frozenset, "frozenset"),
    (set, "set"),
    (type(None), "None"),
)


@dataclass(frozen=True)
class Hints:
    """Annotation names for the tested function: per positional parameter, and return."""

    params: tuple[str, ...] = ()
    returns: str = "Any"

    def param(self, index: int) -> str:
        """The annotation of positional parameter ``index`` (``Any`` when unknown)."""
        return self.params[index] if index < len(self.params) else "Any"


def _type_name(node: ast.expr) -> str | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    for kind, name in _NAMES:
        if isinstance(value, kind):
            return name
    return None


def _merge(names: list[str]) -> str:
    unique = set(names)
    if not unique:
        return "Any"
    if len(unique) == 1:
        return unique.pop()
    if unique <= {"int", "float", "bool"}:
        return "float" if "float" in unique else "int"
    return "Any"


def infer_hints(tests: str, entry: str) -> Hints:
    """Hints for ``entry`` from test statements (see the module docstring)."""
    try:
        tree = parse_quietly(tests)
    except SyntaxError:
        return Hints()
    per_param: dict[int, list[str]] = {}
    returns: list[str] = []

    def is_entry(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry
        )

    for node in ast.walk(tree):
        if is_entry(node):
            assert isinstance(node, ast.Call)
            for index, arg in enumerate(node.args):
                name = _type_name(arg)
                if name is not None:
                    per_param.setdefault(index, []).append(name)
        if not isinstance(node, ast.Assert):
            continue
        test = node.test
        if is_entry(test) or (
            isinstance(test, ast.UnaryOp)
            and isinstance(test.op, ast.Not)
            and is_entry(test.operand)
        ):
            returns.append("bool")
        elif isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right = test.left, test.comparators[0]
            other = right if is_entry(left) else left if is_entry(right) else None
            name = _type_name(other) if other is not None else None
            if name is not None:
                returns.append(name)
        elif isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute):
            if test.func.attr == "isclose" and test.args and is_entry(test.args[0]):
                returns.append("float")
    size = max(per_param, default=-1) + 1
    return Hints(
        params=tuple(_merge(per_param.get(i, [])) for i in range(size)),
        returns=_merge(returns),
    )
