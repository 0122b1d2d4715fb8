"""Syntax-tree checkers: type hints, function docstrings, return style, singletons.

Type hints. Parameters are all of a function's parameters (``*args``/``**kwargs``
included) except a method's leading ``self``/``cls``; lambdas cannot be annotated and
are left out. ``types_full``: every parameter and the return annotated;
``types_args_only``: every parameter, and no return annotation;
``types_args_required``: every parameter (returns free); ``types_none``: no
parameter, return or variable annotation anywhere.

Docstrings (functions only; the module may carry a docstring, e.g. the license).
``doc_required``: every function has a docstring delimited by triple quotes;
``doc_none``: no function has one; ``doc_oneline``: every function docstring there
is sits on one line (none at all is fine).

Return style. ``return_variable``: every ``return`` with a value returns a variable
name or a literal constant (``return total``, ``return -1``, ``return None``), never
a computed expression. ``return_direct``: no ``return name`` right after the
statement ``name = …`` in the same block (a value stored only to be returned).
``return_explicit_none``: no bare ``return``, and no function can run off the end of
its body (the body must end in ``return``/``raise``, also through ``if``/``else``,
``try``, ``with``, ``match`` and ``while True``).

Singletons: comparisons with the constants ``None``, ``True`` or ``False``.
``singleton_is``: never ``==``/``!=`` against them; ``singleton_eq``: never
``is``/``is not``; ``singleton_variable_first``: the constant on the right;
``singleton_yoda``: the constant on the left.
"""

from __future__ import annotations

import ast

from adhere.suites.manyih._check_lexical import string_delimiter
from adhere.suites.manyih._code import Code, Outcome

__all__ = [
    "can_fall_off",
    "stored_then_returned",
    "check_docstrings",
    "check_returns",
    "check_singleton",
    "check_types",
    "parameters",
]


def parameters(func: ast.FunctionDef | ast.AsyncFunctionDef, *, method: bool) -> list[ast.arg]:
    """The parameters type-hint styles judge (a method's ``self``/``cls`` left out)."""
    args = func.args
    found = [*args.posonlyargs, *args.args]
    if method and found and found[0].arg in ("self", "cls"):
        found = found[1:]
    found += args.kwonlyargs
    found += [a for a in (args.vararg, args.kwarg) if a is not None]
    return found


def check_types(code: Code, style_id: str) -> Outcome:
    """types_full / types_args_only / types_args_required / types_none."""
    methods = code.methods
    for func in code.functions:
        where = f"function {func.name} (line {func.lineno})"
        params = parameters(func, method=id(func) in methods)
        if style_id == "types_none":
            hinted = [p.arg for p in params if p.annotation is not None]
            if hinted or func.returns is not None:
                what = f"parameter {hinted[0]!r}" if hinted else "the return"
                return Outcome.bad(f"{where}: {what} is annotated")
            continue
        missing = [p.arg for p in params if p.annotation is None]
        if missing:
            return Outcome.bad(f"{where}: parameter {missing[0]!r} has no annotation")
        if style_id == "types_full" and func.returns is None:
            return Outcome.bad(f"{where}: no return annotation")
        if style_id == "types_args_only" and func.returns is not None:
            return Outcome.bad(f"{where}: return annotated")
    if style_id == "types_none":
        for node in code.nodes:
            if isinstance(node, ast.AnnAssign):
                return Outcome.bad(f"line {node.lineno}: annotated assignment")
    return Outcome.ok()


def check_docstrings(code: Code, style_id: str) -> Outcome:
    """doc_required / doc_none / doc_oneline (function docstrings)."""
    documented = {id(owner): node for owner, node in code.docstrings}
    for func in code.functions:
        node = documented.get(id(func))
        where = f"function {func.name} (line {func.lineno})"
        if style_id == "doc_none" and node is not None:
            return Outcome.bad(f"{where} has a docstring")
        if style_id == "doc_required":
            if node is None:
                return Outcome.bad(f"{where} has no docstring")
            tok = code.token_at((node.lineno, node.col_offset))
            if tok is None or len(string_delimiter(tok.string)[1]) != 3:
                return Outcome.bad(f"{where}: docstring not in triple quotes")
        if style_id == "doc_oneline" and node is not None and node.end_lineno != node.lineno:
            return Outcome.bad(f"{where}: docstring spans lines {node.lineno}-{node.end_lineno}")
    return Outcome.ok()


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    return (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float | complex)
    )


def _blocks(nodes: list[ast.AST]) -> list[list[ast.stmt]]:
    out = []
    for node in nodes:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out.append(block)
    return out


def stored_then_returned(block: list[ast.stmt]) -> list[int]:
    """Indices of ``return name`` statements that follow ``name = …`` in ``block``."""
    found = []
    for index in range(1, len(block)):
        ret, before = block[index], block[index - 1]
        if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name)):
            continue
        name = ret.value.id
        if isinstance(before, ast.Assign) and len(before.targets) == 1:
            target: ast.expr = before.targets[0]
        elif isinstance(before, ast.AnnAssign) and before.value is not None:
            target = before.target
        else:
            continue
        if isinstance(target, ast.Name) and target.id == name:
            found.append(index)
    return found


def can_fall_off(body: list[ast.stmt]) -> bool:
    """Whether running ``body`` can finish without a ``return`` or ``raise``."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return False
    if isinstance(last, ast.If):
        return can_fall_off(last.body) or can_fall_off(last.orelse)
    if isinstance(last, ast.With | ast.AsyncWith):
        return can_fall_off(last.body)
    if isinstance(last, ast.Try | ast.TryStar):
        if last.finalbody and not can_fall_off(last.finalbody):
            return False
        main = last.orelse if last.orelse else last.body
        return can_fall_off(main) or any(can_fall_off(h.body) for h in last.handlers)
    if isinstance(last, ast.Match):
        exhaustive = any(
            isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
            for c in last.cases
        )
        return not exhaustive or any(can_fall_off(c.body) for c in last.cases)
    if isinstance(last, ast.While):
        endless = isinstance(last.test, ast.Constant) and bool(last.test.value)
        has_break = any(isinstance(n, ast.Break) for n in _own_nodes(last.body))
        return not endless or has_break
    return True


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """Nodes of ``body`` outside nested loops and functions (a ``break`` here ends it)."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out


def _returns(func: ast.AST) -> list[ast.Return]:
    """Return statements of ``func`` itself (not of nested functions)."""
    out = []
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Return):
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def check_returns(code: Code, style_id: str) -> Outcome:
    """return_variable / return_direct / return_explicit_none."""
    if style_id == "return_direct":
        for block in _blocks(code.nodes):
            for index in stored_then_returned(block):
                ret = block[index]
                return Outcome.bad(
                    f"line {ret.lineno}: returns a variable assigned just before instead of "
                    "the expression"
                )
        return Outcome.ok()
    for func in code.functions:
        for ret in _returns(func):
            if style_id == "return_variable" and ret.value is not None:
                if not (isinstance(ret.value, ast.Name) or _is_literal(ret.value)):
                    return Outcome.bad(f"line {ret.lineno}: returns an expression directly")
            if style_id == "return_explicit_none" and ret.value is None:
                return Outcome.bad(f"line {ret.lineno}: bare return")
        if style_id == "return_explicit_none" and can_fall_off(func.body):
            return Outcome.bad(
                f"function {func.name} (line {func.lineno}) can end without a return statement"
            )
    return Outcome.ok()


def _singleton(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and (
        node.value is None or node.value is True or node.value is False
    )


def check_singleton(code: Code, style_id: str) -> Outcome:
    """singleton_is / singleton_eq / singleton_variable_first / singleton_yoda."""
    for node in code.nodes:
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            if not (_singleton(left) or _singleton(right)):
                continue
            equality = isinstance(op, ast.Eq | ast.NotEq)
            identity = isinstance(op, ast.Is | ast.IsNot)
            where = f"line {node.lineno}: {ast.unparse(node)[:60]}"
            if style_id == "singleton_is" and equality:
                return Outcome.bad(f"{where} compares a singleton with == or !=")
            if style_id == "singleton_eq" and identity:
                return Outcome.bad(f"{where} compares a singleton with is / is not")
            if not (equality or identity) or (_singleton(left) and _singleton(right)):
                continue
            if style_id == "singleton_variable_first" and _singleton(left):
                return Outcome.bad(f"{where} puts the singleton first")
            if style_id == "singleton_yoda" and _singleton(right):
                return Outcome.bad(f"{where} puts the variable first")
    return Outcome.ok()
