"""``code_rules``: the Python code the trial wrote follows given rules.

The files checked are the ``.py``/``.pyi`` files the trial created or changed that
still exist (optionally narrowed by ``globs``); with none, the verdict is ``n/a``.
A file that no longer parses fails every rule.

By default (``only_changed``) a finding counts only where the trial changed the code:
for AST rules, a function or class any of whose lines the trial added or changed; for
ruff, a diagnostic on such a line. Lines are compared with the file before the trial
(all lines of a new file are changed). So an agent is not blamed for code it only
passed by.

AST rules, in pure Python:

- ``max_function_lines``: a function's length from its ``def`` line to its last
  line (decorators excluded; docstring and blank lines included).
- ``require_docstrings``: public functions, methods and classes (name not starting
  with ``_``; functions nested in functions and ``@overload``/``.setter``/``.deleter``
  definitions exempt) have a docstring.
- ``require_type_hints``: every parameter is annotated (``self``/``cls`` of methods
  exempt, ``*args``/``**kwargs`` included) and there is a return annotation
  (``__init__`` exempt).
- ``no_print``: no call of ``print``.
- ``max_nesting``: inside a function, compound statements (``if``, ``for``, ``while``,
  ``with``, ``try``, ``match``) nest at most this deep; ``elif`` does not add a level.

Ruff rules (``ruff_select``, ``ruff_preview``, ``ruff_config``) run through
:mod:`adhere.judging.verifiers._ruff`.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field, model_validator

from adhere.judging._verify import Outcome, VerifierParams, VerifyContext, verifier
from adhere.judging.verifiers._paths import matches_any
from adhere.judging.verifiers._ruff import RuffOptions, RuffRunner, run_ruff, toml_setting

__all__ = ["CodeRulesParams", "Violation", "changed_lines", "check_code"]

_PY = (".py", ".pyi")
_BLOCKS: tuple[type[ast.stmt], ...] = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Violation:
    """A rule broken at a place in a file."""

    path: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.message}"


class CodeRulesParams(VerifierParams):
    """Parameters of ``code_rules`` (at least one rule is required).

    Attributes:
        max_function_lines: Longest function allowed, in lines.
        require_docstrings: Public functions, methods and classes have docstrings.
        require_type_hints: Parameters and return values are annotated.
        no_print: No ``print`` calls.
        max_nesting: Deepest nesting of compound statements within a function.
        ruff_select: Ruff rule selectors to enforce (``["E", "F"]``, ``["PLR0912"]``).
        ruff_preview: Run ruff with ``--preview`` (needed for preview rules).
        ruff_config: Ruff settings, e.g. ``{"lint.pylint.max-branches": 2}``.
        ruff_timeout: Seconds before ruff is stopped.
        only_changed: Count findings only where the trial changed the code.
        globs: Check only touched files matching these globs.
    """

    max_function_lines: int | None = Field(default=None, ge=1)
    require_docstrings: bool = False
    require_type_hints: bool = False
    no_print: bool = False
    max_nesting: int | None = Field(default=None, ge=0)
    ruff_select: list[str] = Field(default_factory=list)
    ruff_preview: bool = False
    ruff_config: dict[str, str | int | float | bool | list[str]] = Field(default_factory=dict)
    ruff_timeout: float = Field(default=60.0, gt=0)
    only_changed: bool = True
    globs: list[str] | None = None

    @model_validator(mode="after")
    def _some_rule(self) -> CodeRulesParams:
        if not (
            self.max_function_lines
            or self.require_docstrings
            or self.require_type_hints
            or self.no_print
            or self.max_nesting is not None
            or self.ruff_select
        ):
            raise ValueError(
                "give at least one rule: max_function_lines, require_docstrings, "
                "require_type_hints, no_print, max_nesting or ruff_select"
            )
        return self


def changed_lines(before: str | None, after: str) -> set[int]:
    """1-based line numbers of ``after`` that are new or changed relative to ``before``."""
    new = after.splitlines()
    if before is None:
        return set(range(1, len(new) + 1))
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=new, autojunk=False)
    lines: set[int] = set()
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            lines.update(range(j1 + 1, j2 + 1))
        elif tag == "delete":
            lines.add(min(j1 + 1, len(new)) if new else 1)
    return lines


def _span(node: ast.AST) -> range:
    start = getattr(node, "lineno", 0)
    return range(start, (getattr(node, "end_lineno", None) or start) + 1)


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """Every node with its chain of enclosing function and class definitions."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while stack:
        node, parents = stack.pop()
        yield node, parents
        inner = [*parents, node] if isinstance(node, (*_FUNCS, ast.ClassDef)) else parents
        stack.extend((child, inner) for child in reversed(list(ast.iter_child_nodes(node))))


def _exempt_decorator(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        text = ast.unparse(decorator)
        if text in ("overload", "typing.overload") or text.endswith((".setter", ".deleter")):
            return True
    return False


def _missing_hints(node: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> list[str]:
    args = node.args
    params = [*args.posonlyargs, *args.args]
    static = any(ast.unparse(d) == "staticmethod" for d in node.decorator_list)
    if in_class and not static and params and params[0].arg in ("self", "cls", "mcs"):
        params = params[1:]
    params += args.kwonlyargs
    missing = [a.arg for a in params if a.annotation is None]
    missing += [f"*{a.arg}" for a in (args.vararg,) if a is not None and a.annotation is None]
    missing += [f"**{a.arg}" for a in (args.kwarg,) if a is not None and a.annotation is None]
    if node.returns is None and node.name != "__init__":
        missing.append("return")
    return missing


def _depth(body: list[ast.stmt], level: int = 0) -> tuple[int, int]:
    """``(deepest nesting, its line)`` of compound statements in ``body``."""
    best, where = level, 0
    for stmt in body:
        if isinstance(stmt, _FUNCS + (ast.ClassDef,)):
            continue  # nested definitions are measured on their own
        if isinstance(stmt, _BLOCKS):
            inner_level = level + 1
            blocks: list[list[ast.stmt]] = []
            for name in ("body", "orelse", "finalbody"):
                blocks.append(getattr(stmt, name, []))
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
            blocks += [c.body for c in getattr(stmt, "cases", [])]
            if inner_level > best:
                best, where = inner_level, stmt.lineno
            for block in blocks:
                elif_chain = (
                    isinstance(stmt, ast.If)
                    and block is stmt.orelse
                    and len(block) == 1
                    and isinstance(block[0], ast.If)
                )
                depth, line = _depth(block, level if elif_chain else inner_level)
                if depth > best:
                    best, where = depth, line
    return best, where


def _ast_rules(path: str, tree: ast.Module, rules: CodeRulesParams) -> list[Violation]:
    found: list[Violation] = []
    for node, parents in _walk(tree):
        if isinstance(node, ast.Call) and rules.no_print:
            if isinstance(node.func, ast.Name) and node.func.id == "print":
                found.append(Violation(path, node.lineno, "no_print", "print() call"))
        if not isinstance(node, (*_FUNCS, ast.ClassDef)):
            continue
        in_function = any(isinstance(p, _FUNCS) for p in parents)
        in_class = bool(parents) and isinstance(parents[-1], ast.ClassDef)
        public = not node.name.startswith("_")
        if rules.require_docstrings and public and not in_function and not _exempt_decorator(node):
            if ast.get_docstring(node) is None:
                found.append(
                    Violation(
                        path, node.lineno, "require_docstrings", f"{node.name} has no docstring"
                    )
                )
        if not isinstance(node, _FUNCS):
            continue
        length = len(_span(node))
        if rules.max_function_lines and length > rules.max_function_lines:
            found.append(
                Violation(
                    path,
                    node.lineno,
                    "max_function_lines",
                    f"{node.name} has {length} lines (limit {rules.max_function_lines})",
                )
            )
        if rules.require_type_hints and not _exempt_decorator(node):
            missing = _missing_hints(node, in_class)
            if missing:
                found.append(
                    Violation(
                        path,
                        node.lineno,
                        "require_type_hints",
                        f"{node.name} lacks annotations for {', '.join(missing)}",
                    )
                )
        if rules.max_nesting is not None:
            depth, line = _depth(node.body)
            if depth > rules.max_nesting:
                found.append(
                    Violation(
                        path,
                        line,
                        "max_nesting",
                        f"{node.name} nests {depth} deep (limit {rules.max_nesting})",
                    )
                )
    return found


def _owner_spans(tree: ast.Module) -> list[range]:
    """Line spans of every function and class, innermost last."""
    return [_span(n) for n in ast.walk(tree) if isinstance(n, (*_FUNCS, ast.ClassDef))]


def check_code(
    files: Mapping[str, str],
    before: Mapping[str, str],
    rules: CodeRulesParams,
    ruff: RuffRunner = run_ruff,
) -> list[Violation]:
    """Violations of ``rules`` in ``files`` (path → final text), sorted by place.

    Args:
        files: The Python files to check, by workspace-relative path.
        before: The workspace before the trial (to find changed lines).
        rules: The rules.
        ruff: Runs ruff (injectable for tests).
    """
    found: list[Violation] = []
    trees: dict[str, ast.Module] = {}
    changed: dict[str, set[int]] = {}
    for path, text in sorted(files.items()):
        changed[path] = changed_lines(before.get(path), text)
        try:
            trees[path] = ast.parse(text, filename=path)
        except SyntaxError as exc:
            found.append(Violation(path, exc.lineno or 0, "syntax", f"does not parse: {exc.msg}"))
            continue
        for violation in _ast_rules(path, trees[path], rules):
            if not rules.only_changed or _touched(violation, trees[path], changed[path]):
                found.append(violation)
    if rules.ruff_select:
        options = RuffOptions(
            select=tuple(rules.ruff_select),
            preview=rules.ruff_preview,
            config=tuple(toml_setting(k, v) for k, v in sorted(rules.ruff_config.items())),
            timeout=rules.ruff_timeout,
        )
        for d in ruff(dict(files), options):
            if d.code == "syntax-error" and d.path not in trees:
                continue  # already reported by the parser
            if (
                rules.only_changed
                and d.code != "syntax-error"
                and d.line not in changed.get(d.path, set())
            ):
                continue
            found.append(Violation(d.path, d.line, f"ruff {d.code}", d.message))
    return sorted(found, key=lambda v: (v.path, v.line, v.rule))


def _touched(violation: Violation, tree: ast.Module, lines: set[int]) -> bool:
    """Whether the trial changed the definition (or line) a violation points at."""
    if violation.rule == "no_print":
        return violation.line in lines
    spans = [s for s in _owner_spans(tree) if violation.line == s.start]
    if violation.rule == "max_nesting":
        spans = [s for s in _owner_spans(tree) if violation.line in s][-1:]
    return any(lines.intersection(s) for s in spans) or violation.line in lines


@verifier("code_rules", params=CodeRulesParams)
def code_rules(ctx: VerifyContext, **params: Any) -> Outcome:
    """Python files the trial touched follow the given AST and ruff rules."""
    rules = CodeRulesParams(**params)
    touched = {
        path: ctx.final_files[path]
        for path in sorted(ctx.trajectory.files)
        if path.endswith(_PY)
        and path in ctx.final_files
        and (rules.globs is None or matches_any(path, rules.globs))
    }
    if not touched:
        return Outcome("n/a", "the trial created or changed no Python file")
    found = check_code(touched, ctx.initial_files, rules)
    names = ", ".join(touched)
    if found:
        shown = "; ".join(str(v) for v in found[:5])
        more = f"; and {len(found) - 5} more" if len(found) > 5 else ""
        return Outcome(
            "fail",
            shown + more,
            details={"violations": [str(v) for v in found]},
        )
    scope = " (changed code)" if rules.only_changed else ""
    return Outcome("pass", f"no rule broken in {names}{scope}")
