"""Type-hint pass of the restyler: add the annotations a style wants, or remove them all.

Annotations for the tested function come from :mod:`._hints` (literals in the tests);
other functions get ``Any`` (imported from ``typing`` when used). Removing
annotations turns ``x: int = 1`` into ``x = 1`` (and a bare ``x: int`` into ``pass``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from adhere.suites.manyih._check_defs import parameters
from adhere.suites.manyih._hints import Hints
from adhere.suites.manyih._restyle_tree import (
    FuncDef,
    all_functions,
    entry_function,
    has_docstring,
    stmt_lists,
)

__all__ = ["annotate"]


def _annotation(name: str) -> ast.expr:
    return ast.Constant(None) if name == "None" else ast.Name(name, ast.Load())


def annotate(
    tree: ast.Module,
    mode: str,
    *,
    entry: str,
    hints: Hints,
    violate: Sequence[str] = (),
) -> None:
    """Type hints in one of four modes.

    ``full``, ``args_only``, ``args_required`` (add what is missing) or ``none``
    (remove every annotation). ``violate``: type styles to break, in the tested
    function, while keeping to ``mode`` elsewhere (noisy answers).
    """
    methods = {
        id(item) for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for item in node.body
    }
    main = entry_function(tree, entry)
    for func in all_functions(tree):
        params = parameters(func, method=id(func) in methods)
        positional = [*func.args.posonlyargs, *func.args.args]
        is_main = func is main
        if mode == "none":
            for param in [*positional, *func.args.kwonlyargs, func.args.vararg, func.args.kwarg]:
                if param is not None:
                    param.annotation = None
            func.returns = None
        else:
            for param in params:
                if param.annotation is None:
                    index = positional.index(param) if param in positional else 10_000
                    name = hints.param(index) if is_main else "Any"
                    param.annotation = _annotation(name)
            if mode == "full" and func.returns is None:
                func.returns = _annotation(hints.returns if is_main else "Any")
            elif mode == "args_only":
                func.returns = None
        if is_main:
            for style_id in violate:
                _break_types(func, params, style_id, hints)
    if mode == "none":
        _drop_variable_annotations(tree)
    if any(isinstance(n, ast.Name) and n.id == "Any" for n in ast.walk(tree)):
        _import_any(tree)


def _break_types(func: FuncDef, params: list[ast.arg], violate: str, hints: Hints) -> None:
    if violate == "types_full":
        func.returns = None
    elif violate == "types_args_only":
        func.returns = _annotation(hints.returns)
    elif violate == "types_args_required" and params:
        params[0].annotation = None
    elif violate == "types_none":
        if params:
            params[0].annotation = _annotation(hints.param(0))
        else:
            func.returns = _annotation(hints.returns)


def _drop_variable_annotations(tree: ast.Module) -> None:
    for block in list(stmt_lists(tree)):
        for index, stmt in enumerate(block):
            if isinstance(stmt, ast.AnnAssign):
                if stmt.value is not None:
                    block[index] = ast.Assign(targets=[stmt.target], value=stmt.value, lineno=0)
                else:
                    block[index] = ast.Pass()


def _import_any(tree: ast.Module) -> None:
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "typing":
            if any(alias.name == "Any" and alias.asname is None for alias in node.names):
                return
    where = 1 if has_docstring(tree) else 0
    tree.body.insert(where, ast.ImportFrom("typing", [ast.alias("Any")], 0))
