"""Syntax-tree passes of the restyler: returns, singletons, docstrings, annotations.

Each pass rewrites a parsed module in place and keeps its behaviour (the exceptions
are documented on the pass: ``x == True`` → ``x is True`` differs for values equal to
but not identical with ``True``; the noisy-answer carriers add statements).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from adhere.suites.manyih._check_defs import can_fall_off, parameters, stored_then_returned

__all__ = [
    "FuncDef",
    "add_all_carrier",
    "all_functions",
    "entry_function",
    "has_docstring",
    "stmt_lists",
    "add_module_docstring",
    "add_singleton_carrier",
    "bare_return",
    "break_entry",
    "docstrings",
    "explicit_none",
    "returns_direct",
    "returns_to_variable",
    "singleton_operators",
    "singleton_order",
    "store_before_return",
    "wrap_return",
]

FuncDef = ast.FunctionDef | ast.AsyncFunctionDef


def all_functions(tree: ast.AST) -> list[FuncDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def entry_function(tree: ast.Module, entry: str) -> FuncDef | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry:
            return node
    funcs = all_functions(tree)
    return funcs[0] if funcs else None


def stmt_lists(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    return (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
    )


def _fresh(tree: ast.AST, base: str) -> str:
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    name, number = base, 2
    while name in used:
        name, number = f"{base}{number}", number + 1
    return name


def returns_to_variable(tree: ast.Module) -> None:
    """``return <expression>`` → ``result = <expression>`` then ``return result``."""
    name = _fresh(tree, "result")
    inside = {id(r) for f in all_functions(tree) for r in ast.walk(f) if isinstance(r, ast.Return)}
    for block in list(stmt_lists(tree)):
        index = 0
        while index < len(block):
            stmt = block[index]
            if (
                isinstance(stmt, ast.Return)
                and id(stmt) in inside
                and stmt.value is not None
                and not isinstance(stmt.value, ast.Name)
                and not _is_literal(stmt.value)
            ):
                block[index : index + 1] = [
                    ast.Assign(targets=[ast.Name(name, ast.Store())], value=stmt.value, lineno=0),
                    ast.Return(value=ast.Name(name, ast.Load())),
                ]
                index += 1
            index += 1


def returns_direct(tree: ast.Module) -> None:
    """``name = <expression>`` then ``return name`` → ``return <expression>``."""
    declared = {
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Global | ast.Nonlocal)
        for name in node.names
    }
    for block in list(stmt_lists(tree)):
        for index in reversed(stored_then_returned(block)):
            before = block[index - 1]
            ret = block[index]
            assert isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name)
            if ret.value.id in declared:
                continue
            value = before.value if isinstance(before, ast.Assign | ast.AnnAssign) else None
            if value is not None:
                block[index - 1 : index + 1] = [ast.Return(value=value)]


def _last_value_return(func: FuncDef) -> tuple[list[ast.stmt], int] | None:
    """(block, index) of the last ``return <value>`` of ``func`` (its own, in order)."""
    found = None
    for block in stmt_lists(func):
        for index, stmt in enumerate(block):
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                if found is None or (stmt.lineno, stmt.col_offset) >= found[0]:
                    found = ((getattr(stmt, "lineno", 0), getattr(stmt, "col_offset", 0)),
                             block, index)  # fmt: skip
    return None if found is None else (found[1], found[2])


def store_before_return(tree: ast.Module, entry: str) -> bool:
    """Noisy carrier: the tested function's last ``return <value>`` stores it first."""
    func = entry_function(tree, entry)
    place = _last_value_return(func) if func is not None else None
    if func is None or place is None:
        return False
    block, index = place
    ret = block[index]
    assert isinstance(ret, ast.Return) and ret.value is not None
    name = _fresh(tree, "result")
    block[index : index + 1] = [
        ast.Assign(targets=[ast.Name(name, ast.Store())], value=ret.value, lineno=0),
        ast.Return(value=ast.Name(name, ast.Load())),
    ]
    return True


def wrap_return(tree: ast.Module, entry: str) -> bool:
    """Noisy carrier: the tested function's last ``return name`` returns an expression.

    ``return x`` becomes ``return x if True else None`` (the same value, computed).
    """
    func = entry_function(tree, entry)
    place = _last_value_return(func) if func is not None else None
    if func is None or place is None:
        return False
    block, index = place
    ret = block[index]
    assert isinstance(ret, ast.Return) and ret.value is not None
    if isinstance(ret.value, ast.Name) or _is_literal(ret.value):
        ret.value = ast.IfExp(test=ast.Constant(True), body=ret.value, orelse=ast.Constant(None))
    return True


def explicit_none(tree: ast.Module) -> None:
    """Bare ``return`` → ``return None``; bodies that can run off the end get one."""
    for func in all_functions(tree):
        for node in ast.walk(func):
            if isinstance(node, ast.Return) and node.value is None:
                node.value = ast.Constant(None)
        if can_fall_off(func.body):
            func.body.append(ast.Return(value=ast.Constant(None)))


def bare_return(tree: ast.Module, entry: str) -> bool:
    """Noisy carrier: a bare ``return`` at the end of the tested function."""
    func = entry_function(tree, entry)
    if func is None:
        return False
    func.body.append(ast.Return(value=None))
    return True


def _singleton(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and (
        node.value is None or node.value is True or node.value is False
    )


def singleton_operators(tree: ast.Module, mode: str) -> None:
    """``mode="is"``: ``==``/``!=`` against a singleton → ``is``/``is not``; ``"eq"``: back."""
    swap: dict[type, type] = (
        {ast.Eq: ast.Is, ast.NotEq: ast.IsNot}
        if mode == "is"
        else {ast.Is: ast.Eq, ast.IsNot: ast.NotEq}
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for index, op in enumerate(node.ops):
                pair = operands[index], operands[index + 1]
                if type(op) in swap and any(_singleton(o) for o in pair):
                    node.ops[index] = swap[type(op)]()


def singleton_order(tree: ast.Module, order: str) -> None:
    """Put the singleton of two-operand comparisons last (``variable_first``) or first."""
    symmetric = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            continue
        if not isinstance(node.ops[0], symmetric):
            continue
        left, right = node.left, node.comparators[0]
        if _singleton(left) == _singleton(right):
            continue
        wrong = _singleton(left) if order == "variable_first" else _singleton(right)
        if wrong:
            node.left, node.comparators = right, [left]


def add_singleton_carrier(tree: ast.Module, entry: str, op: str, singleton_first: bool) -> bool:
    """Noisy carrier: ``assert <first parameter> is not None`` in the given form."""
    func = entry_function(tree, entry)
    if func is None:
        return False
    params = parameters(func, method=False)
    if not params:
        return False
    variable: ast.expr = ast.Name(params[0].arg, ast.Load())
    none: ast.expr = ast.Constant(None)
    operator: ast.cmpop = ast.IsNot() if op == "is" else ast.NotEq()
    left, right = (none, variable) if singleton_first else (variable, none)
    check = ast.Assert(test=ast.Compare(left=left, ops=[operator], comparators=[right]))
    start = 1 if has_docstring(func) else 0
    func.body.insert(start, check)
    return True


def has_docstring(node: ast.AST) -> bool:
    body = getattr(node, "body", [])
    return bool(
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def _depths(tree: ast.Module) -> dict[int, int]:
    """Nesting depth of every function (0: at module level)."""
    out: dict[int, int] = {}

    def visit(node: ast.AST, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                out[id(child)] = depth
                visit(child, depth + 1)
            elif isinstance(child, ast.ClassDef):
                visit(child, depth + 1)
            else:
                visit(child, depth)

    visit(tree, 0)
    return out


def _clip(text: str, width: int) -> str:
    text = " ".join(text.replace('"', "'").replace("\\", "/").split())
    if len(text) <= width:
        return text
    cut = text[: max(width - 1, 1)].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "."


def summary_of(task: str) -> str:
    """A docstring sentence from a task statement (``Write a function to find x`` → ``Find x.``)."""
    first = re.split(r"(?<=[.!?])\s", " ".join(task.split()), maxsplit=1)[0]
    first = re.sub(r"`[^`]*`", "", first)
    first = re.sub(r"^write\s+(a\s+)?(python\s+)?function\s+(that\s+|which\s+|to\s+)?", "",
                   first.strip(), flags=re.IGNORECASE)  # fmt: skip
    first = " ".join(first.split()).rstrip(".")
    if not first:
        return "Solve the task."
    return first[0].upper() + first[1:] + "."


def docstrings(
    tree: ast.Module,
    mode: str,
    *,
    entry: str,
    summary: str,
    width: int | None,
    unit_width: int,
) -> None:
    """Function docstrings in one of four modes.

    ``required`` (add a one-line docstring where missing), ``none`` (remove),
    ``oneline`` (join multi-line ones) or ``multiline`` (noisy: the tested function's
    docstring spans lines). ``width`` caps a docstring line's length (line-length styles).
    """
    depths = _depths(tree)
    for func in all_functions(tree):
        room = None if width is None else width - unit_width * (depths.get(id(func), 0) + 1) - 6
        text = summary if func.name == entry else f"Helper for {func.name.replace('_', ' ')}."
        has = has_docstring(func)
        if mode == "none" and has:
            del func.body[0]
            if not func.body:
                func.body.append(ast.Pass())
        elif mode == "required" and not has:
            func.body.insert(0, ast.Expr(ast.Constant(_clip(text, room or 10_000))))
        elif mode in ("oneline", "required") and has:
            node = func.body[0].value  # type: ignore[attr-defined]
            if "\n" in node.value or (room is not None and len(node.value) > room):
                node.value = _clip(node.value, room or 10_000)
        elif mode == "multiline" and func.name == entry:
            indent = " " * unit_width * (depths.get(id(func), 0) + 1)
            value = f"{_clip(text, room or 10_000)}\n\n{indent}Returns the answer.\n{indent}"
            if has:
                func.body[0].value.value = value  # type: ignore[attr-defined]
            else:
                func.body.insert(0, ast.Expr(ast.Constant(value)))


def add_module_docstring(tree: ast.Module) -> None:
    """Noisy carrier: make sure the module has a docstring."""
    if not has_docstring(tree):
        tree.body.insert(0, ast.Expr(ast.Constant("Solution.")))


def add_all_carrier(tree: ast.Module, entry: str, *, repeat: bool = False) -> None:
    """Noisy carrier: ``__all__ = ["<entry>"]``.

    A string to mis-quote and an ``=`` to mis-space; with ``repeat``,
    ``["<entry>"] * 1``: an arithmetic operator as well.
    """
    value: ast.expr = ast.List(elts=[ast.Constant(entry)], ctx=ast.Load())
    if repeat:
        value = ast.BinOp(left=value, op=ast.Mult(), right=ast.Constant(1))
    tree.body.append(ast.Assign(targets=[ast.Name("__all__", ast.Store())], value=value, lineno=0))


def break_entry(tree: ast.Module, entry: str) -> bool:
    """Noisy answer: the tested function under another name, so the tests cannot call it."""
    func = entry_function(tree, entry)
    if func is None or func.name != entry:
        return False
    func.name = entry[:1].swapcase() + entry[1:] if entry[:1].isalpha() else entry + "_x"
    return True
