"""Which names count as variables for the naming and name-length styles.

Variables are the names code binds itself: function parameters (of ``def`` and
``lambda``), assignment and augmented/annotated assignment targets, ``for`` and
comprehension targets, ``with … as``, ``except … as``, walrus targets and match
captures. Not variables: function and class names (the task fixes the function's
name), imported names, attribute and subscript targets (``self.x``, ``a[i]``),
keyword-argument names in calls (``sorted(xs, key=len)`` binds nothing), the
conventional ``self``/``cls``, the throwaway ``_`` and dunder names.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

__all__ = ["EXEMPT", "is_variable_name", "variables"]

EXEMPT = frozenset({"self", "cls", "_"})
"""Names never treated as variables."""


def is_variable_name(name: str) -> bool:
    """Whether a bound name is subject to the naming styles."""
    return name not in EXEMPT and not (name.startswith("__") and name.endswith("__"))


def variables(nodes: ast.AST | Iterable[ast.AST]) -> dict[str, tuple[int, int]]:
    """Variable names → position (row, col) of their first binding, in source order.

    ``nodes``: a tree, or all of its nodes already walked.
    """
    found: list[tuple[tuple[int, int], str]] = []

    def add(name: str | None, node: ast.AST) -> None:
        if name and is_variable_name(name):
            found.append(((getattr(node, "lineno", 0), getattr(node, "col_offset", 0)), name))

    walked = ast.walk(nodes) if isinstance(nodes, ast.AST) else nodes
    for node in walked:
        if isinstance(node, ast.arguments):
            for param in [*node.posonlyargs, *node.args, *node.kwonlyargs]:
                add(param.arg, param)
            for rest in (node.vararg, node.kwarg):
                if rest is not None:
                    add(rest.arg, rest)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            add(node.id, node)
        elif isinstance(node, ast.ExceptHandler):
            add(node.name, node)
        elif isinstance(node, ast.MatchAs | ast.MatchStar):
            add(node.name, node)
        elif isinstance(node, ast.MatchMapping):
            add(node.rest, node)
    out: dict[str, tuple[int, int]] = {}
    for position, name in sorted(found):
        out.setdefault(name, position)
    return out
