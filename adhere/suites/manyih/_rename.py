"""Renaming variables to satisfy naming and name-length styles (used by the oracle).

:func:`plan_renames` picks a new name for every variable (see ``_names``) that breaks
a rule, keeping names that already fit; :func:`apply_renames` rewrites a syntax tree
scope by scope: a name is renamed where it is bound — in a function, one that
encloses it, or the module — so a builtin used in one function keeps its name even
when another function has a variable of the same name. Keyword arguments of calls to
functions defined in the code follow their parameters' new names.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from adhere.suites.manyih._check_names import CONSONANTS, name_ok
from adhere.suites.manyih._names import variables

__all__ = ["NameRules", "apply_renames", "plan_renames", "violating_name"]

_SOFT = frozenset({"match", "case", "type", "_"})
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class NameRules:
    """What every variable name must satisfy."""

    case: Literal["snake", "camel"] | None = None
    min_len: int = 1
    max_len: int | None = None
    consonant: bool = False

    def ok(self, name: str) -> bool:
        """Whether ``name`` satisfies every rule (and is a usable identifier)."""
        if not name.isidentifier() or keyword.iskeyword(name) or name in _SOFT:
            return False
        if self.case == "snake" and not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            return False
        if self.case == "camel" and not re.fullmatch(r"[a-z][a-zA-Z0-9]*", name):
            return False
        if self.consonant and name[0] not in CONSONANTS:
            return False
        return len(name) >= self.min_len and (self.max_len is None or len(name) <= self.max_len)

    @property
    def active(self) -> bool:
        """Whether any rule is set."""
        return self != NameRules()


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w.lower() for w in spaced.split("_") if w]


def _join(words: list[str], camel: bool) -> str:
    if not camel:
        return "_".join(words)
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def _short_names(rules: NameRules, first: str) -> Iterator[str]:
    """Candidate names of one, then two letters (the name's own initial first)."""
    initials = [c for c in first.lower() + _LETTERS if c in _LETTERS]
    seen: set[str] = set()
    for size in (1, 2):
        for a in dict.fromkeys(initials):
            tails = [""] if size == 1 else list(_LETTERS)
            for b in tails:
                name = a + b
                if name not in seen:
                    seen.add(name)
                    yield name


def fit(name: str, rules: NameRules, taken: set[str]) -> str:
    """A name close to ``name`` that satisfies ``rules`` and is not in ``taken``."""
    if rules.ok(name) and name not in taken:
        return name
    words = _words(name) or ["v"]
    camel = rules.case == "camel" or (rules.case is None and "_" not in name.strip("_")
                                      and any(c.isupper() for c in name))  # fmt: skip
    if rules.consonant and words[0][0] not in CONSONANTS:
        words = ["v", *words]
    if rules.max_len is None or len(_join(words, camel)) <= rules.max_len:
        while len(_join(words, camel)) < rules.min_len:
            words.append("val")
        base = _join(words, camel)
        if rules.ok(base) and base not in taken:
            return base
        for number in range(2, 1000):
            candidate = f"{base}{number}"
            if rules.ok(candidate) and candidate not in taken:
                return candidate
    for candidate in _short_names(rules, words[0]):
        if rules.ok(candidate) and candidate not in taken:
            return candidate
    raise ValueError(f"no name satisfies {rules} for {name!r}")


def violating_name(name: str, style_id: str, rules: NameRules, taken: set[str]) -> str | None:
    """A name breaking ``style_id`` but, where possible, the other rules (noisy answers)."""
    candidates: list[str] = []
    if style_id in ("naming_snake", "naming_camel"):
        candidates = [name[:1].upper() + name[1:]]
    elif style_id == "naming_consonant_start":
        candidates = [v + name[1:] for v in "aeiou"]
    elif style_id == "var_min3":
        candidates = [name[:2], *(n for n in _short_names(rules, name) if len(n) == 2)]
    elif style_id == "var_min5":
        stem = name[:4] if len(name) >= 3 else name + "x" * (3 - len(name))
        candidates = [stem, *(stem[:3] + c for c in _LETTERS)]
    elif style_id == "var_max2":
        relaxed = NameRules(rules.case, max(rules.min_len, 3), None, rules.consonant)
        candidates = [fit(name + "xx", relaxed, taken)]
    elif style_id == "var_single":
        candidates = [n for n in _short_names(rules, name) if len(n) == 2]
    for candidate in candidates:
        usable = candidate.isidentifier() and not keyword.iskeyword(candidate)
        if usable and candidate not in taken and candidate not in _SOFT:
            if not name_ok(style_id, candidate):
                return candidate
    return None


def plan_renames(
    tree: ast.AST,
    rules: NameRules,
    *,
    keep: frozenset[str] = frozenset(),
    violate: Sequence[str] = (),
) -> dict[str, str]:
    """Old → new name for every variable that must change (in order of first binding).

    ``keep``: names the tests use; those bound at module level are not renamed (a
    function's local variable of the same name is). ``violate``: naming or length
    styles to break on purpose, each with the next variable in order.
    """
    found = list(variables(tree))
    keep = frozenset(keep & _bound(tree))
    every = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    every |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    defined = {
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    imported = {
        (alias.asname or alias.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for alias in n.names
    }
    taken = (every - set(found)) | defined | imported | set(keep) | set(dir(builtins))
    mapping: dict[str, str] = {}
    for name in found:
        if name in keep:
            taken.add(name)
            continue
        new = fit(name, rules, taken) if rules.active else name
        taken.add(new)
        if new != name:
            mapping[name] = new
    movable = [n for n in found if n not in keep]
    for style_id, victim in zip(violate, movable, strict=False):
        current = mapping.get(victim, victim)
        bad = violating_name(current, style_id, rules, taken)
        if bad is not None:
            taken.add(bad)
            mapping[victim] = bad
    return mapping


def _bound(scope: ast.AST) -> set[str]:
    """Names bound directly in a scope (nested functions and lambdas excluded)."""
    names: set[str] = set()
    stack: list[ast.AST] = []
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        args = scope.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                names.add(arg.arg)
        stack = list(scope.body) if isinstance(scope.body, list) else [scope.body]
    else:
        stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            if not isinstance(node, ast.Lambda):
                stack.extend(node.decorator_list)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                stack.extend(node.args.defaults)
                stack.extend(d for d in node.args.kw_defaults if d is not None)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names


def apply_renames(tree: ast.Module, mapping: dict[str, str]) -> None:
    """Rename variables in place, scope by scope (see the module docstring)."""
    if not mapping:
        return
    params = {
        n.name: {a.arg for a in [*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs]}
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }

    def visit(node: ast.AST, chain: list[set[str]]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner = [*chain, _bound(node)]
            if not isinstance(node, ast.Lambda):
                for deco in node.decorator_list:
                    visit(deco, chain)
                if node.returns is not None:
                    visit(node.returns, chain)
            args = node.args
            for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
                visit(default, chain)
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is None:
                    continue
                if arg.arg in mapping:
                    arg.arg = mapping[arg.arg]
                if arg.annotation is not None:
                    visit(arg.annotation, chain)
            for statement in node.body if isinstance(node.body, list) else [node.body]:
                visit(statement, inner)
            return
        if isinstance(node, ast.Name) and node.id in mapping:
            if any(node.id in names for names in chain):
                node.id = mapping[node.id]
        elif isinstance(node, ast.ExceptHandler) and node.name in mapping:
            node.name = mapping[node.name]
        elif isinstance(node, ast.Global | ast.Nonlocal):
            node.names = [mapping.get(n, n) for n in node.names]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            known = params.get(node.func.id, set())
            for kw in node.keywords:
                if kw.arg in known and kw.arg in mapping:
                    kw.arg = mapping[kw.arg]
        for child in ast.iter_child_nodes(node):
            visit(child, chain)

    visit(tree, [_bound(tree)])
