"""The restyler: reference code rewritten to satisfy a set of winning styles.

The oracle policy answers a ManyIH sample with its reference code restyled by
:func:`restyle`; the noisy policy asks for one winning style to be broken on purpose
(``violate``) or for the tests to fail (``break_tests``). Passes, in order:

1. syntax tree: return style, explicit ``return None``, singleton comparisons,
   docstrings, type hints, renaming variables (scope-aware; names the tests use are
   kept), noisy carriers (an ``assert`` with a singleton, ``__all__``, a module
   docstring, a bare ``return``) where breaking a style needs something to break;
2. ``ast.unparse`` (comments of the reference code are dropped here);
3. tokens: blank lines in function bodies, operator spacing, quotes, docstring
   delimiters, license header, indentation, wrapping long lines inside brackets.

Every pass keeps the code's behaviour (see each pass). What cannot be done
mechanically is reported, never hidden: after restyling, each wanted style is checked
with the same checker that scores models, and the ones still failing come back in
:attr:`Restyled.unmet` (a string too long for the line limit; a line with no bracket
to break at; a name rule no identifier can meet).
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass, field

from adhere.suites.manyih._check_lexical import operator_uses
from adhere.suites.manyih._checkers import check_styles
from adhere.suites.manyih._code import Code
from adhere.suites.manyih._hints import Hints
from adhere.suites.manyih._rename import NameRules, apply_renames, plan_renames
from adhere.suites.manyih._restyle_text import (
    docstring_quotes,
    insert_blank_lines,
    license_header,
    reindent,
    requote,
    respace_operators,
    strip_blank_lines,
)
from adhere.suites.manyih._restyle_tree import (
    add_all_carrier,
    add_module_docstring,
    add_singleton_carrier,
    annotate,
    bare_return,
    break_entry,
    docstrings,
    explicit_none,
    returns_direct,
    returns_to_variable,
    singleton_operators,
    singleton_order,
    store_before_return,
    wrap_return,
)
from adhere.suites.manyih._styles import STYLES
from adhere.suites.manyih._wrap import wrap_long_lines

__all__ = ["Restyled", "Task", "restyle"]

_NAMING = {"naming_snake", "naming_camel", "naming_consonant_start"}
_LENGTH = {"var_min3", "var_min5", "var_max2", "var_single"}
_UNITS = {"indent_2": "  ", "indent_4": "    ", "indent_tab": "\t", "indent_spaces": "    "}
_UNIT_BROKEN = {"indent_2": "    ", "indent_4": "  ", "indent_tab": "    ", "indent_spaces": "\t"}


@dataclass(frozen=True)
class Task:
    """What the restyler knows about a sample."""

    reference: str
    entry: str
    summary: str = "Solve the task."
    hints: Hints = field(default_factory=Hints)
    keep: frozenset[str] = frozenset()
    """Names the tests use (never renamed)."""


@dataclass(frozen=True)
class Restyled:
    """Restyled code, the wanted styles it still fails, and what was broken on purpose."""

    code: str
    unmet: dict[str, str]
    noise: list[str]


def _rules(styles: set[str]) -> NameRules:
    case = "snake" if "naming_snake" in styles else "camel" if "naming_camel" in styles else None
    low = 5 if "var_min5" in styles else 3 if "var_min3" in styles else 1
    high = 1 if "var_single" in styles else 2 if "var_max2" in styles else None
    return NameRules(case, low, high, "naming_consonant_start" in styles)  # type: ignore[arg-type]


def restyle(
    task: Task,
    styles: Collection[str],
    *,
    violate: str | None = None,
    break_tests: bool = False,
) -> Restyled:
    """Rewrite ``task.reference`` to satisfy ``styles`` (see the module docstring).

    Args:
        task: The reference code and what is known about the tested function.
        styles: Style ids to satisfy (a sample's winners).
        violate: One of ``styles`` to break on purpose (it is then not reported unmet).
        break_tests: Rename the tested function so the tests cannot call it.
    """
    wanted = set(styles)
    unknown = wanted - set(STYLES)
    if unknown:
        raise KeyError(f"unknown styles {sorted(unknown)}")
    if violate is not None and violate not in wanted:
        raise ValueError(f"can only violate a wanted style, not {violate!r}")
    keep = wanted - {violate} if violate else wanted
    noise: list[str] = []
    tree = ast.parse(task.reference)
    entry = task.entry

    unit = next((_UNITS[s] for s in ("indent_2", "indent_4", "indent_tab") if s in wanted), None)
    if unit is None and "indent_spaces" in wanted:
        unit = "    "
    if violate in _UNIT_BROKEN:
        unit = _UNIT_BROKEN[violate]
    unit_width = len(unit) if unit else 4
    limit = 79 if "line_79" in keep else 120 if "line_120" in keep else None

    _tree_returns(tree, wanted, violate, entry, noise)
    _tree_singletons(tree, wanted, violate, entry, noise)
    doc_mode = _doc_mode(wanted, violate)
    if doc_mode:
        docstrings(tree, doc_mode, entry=entry, summary=task.summary, width=limit,
                   unit_width=unit_width)  # fmt: skip
    type_mode = next(
        (m for s, m in (("types_none", "none"), ("types_full", "full"),
                        ("types_args_only", "args_only"), ("types_args_required", "args_required"))
         if s in wanted),
        None,
    )  # fmt: skip
    if type_mode:
        breaking = violate if violate and violate.startswith("types_") else None
        annotate(tree, type_mode, entry=entry, hints=task.hints, violate=breaking)
    if violate in ("quotes_single", "quotes_double"):
        add_all_carrier(tree, entry)
    if violate == "quotes_docstring_triple_double":
        add_module_docstring(tree)
    rules = _rules(wanted)
    name_violation = violate if violate in _NAMING | _LENGTH else None
    mapping = plan_renames(tree, rules, keep=task.keep | {entry}, violate=name_violation)
    apply_renames(tree, mapping)
    if break_tests and break_entry(tree, entry):
        noise.append("renamed the tested function")

    text = ast.unparse(tree) + "\n"
    text = _text_passes(text, wanted, violate, entry, unit, limit)
    if violate is not None:
        noise.append(f"broke {violate}")
    outcomes = check_styles(Code(text), sorted(keep))
    unmet = {sid: o.reason for sid, o in outcomes.items() if not o.passed}
    return Restyled(code=text, unmet=unmet, noise=noise)


def _tree_returns(
    tree: ast.Module, wanted: set[str], violate: str | None, entry: str, noise: list[str]
) -> None:
    if "return_variable" in wanted:
        if violate == "return_variable":
            returns_direct(tree)
            wrap_return(tree, entry)
        else:
            returns_to_variable(tree)
    if "return_direct" in wanted:
        returns_direct(tree)
        if violate == "return_direct":
            store_before_return(tree, entry)
    if "return_explicit_none" in wanted:
        explicit_none(tree)
        if violate == "return_explicit_none":
            bare_return(tree, entry)


def _tree_singletons(
    tree: ast.Module, wanted: set[str], violate: str | None, entry: str, noise: list[str]
) -> None:
    op = "is" if "singleton_is" in wanted else "eq" if "singleton_eq" in wanted else None
    order = (
        "variable_first"
        if "singleton_variable_first" in wanted
        else "yoda"
        if "singleton_yoda" in wanted
        else None
    )
    if op:
        singleton_operators(tree, op)
    if order:
        singleton_order(tree, order)
    if violate is None or not violate.startswith("singleton_"):
        return
    form = {"singleton_is": "eq", "singleton_eq": "is"}.get(violate, op or "is")
    first = {"singleton_variable_first": True, "singleton_yoda": False}.get(
        violate, order == "yoda"
    )
    if not add_singleton_carrier(tree, entry, form, first):
        noise.append(f"nothing to break {violate} with")


def _doc_mode(wanted: set[str], violate: str | None) -> str | None:
    if violate == "doc_required":
        return "none"
    if violate == "doc_none":
        return "required"
    if violate == "doc_oneline":
        return "multiline"
    if "doc_required" in wanted:
        return "required"
    if "doc_none" in wanted:
        return "none"
    if "doc_oneline" in wanted:
        return "oneline"
    return None


def _text_passes(
    text: str, wanted: set[str], violate: str | None, entry: str, unit: str | None,
    limit: int | None,
) -> str:  # fmt: skip
    blank = {"blank_internal_none": 0, "blank_internal_one": 1, "blank_internal_required": 1}
    counts = [n for s, n in blank.items() if s in wanted]
    if counts:
        default = max(counts)
        per_function: dict[str, int] = {}
        if violate == "blank_internal_none":
            default = 1
        elif violate == "blank_internal_one":
            per_function[entry] = 2
        elif violate == "blank_internal_required":
            default = 0
        text = insert_blank_lines(strip_blank_lines(text), per_function, default)
    op_style = next((s for s in STYLES if s.startswith("op_space_") and s in wanted), None)
    if op_style is not None:
        text = respace_operators(text, _op_target(text, op_style, violate))
    if "quotes_single" in wanted or "quotes_double" in wanted:
        quote = "'" if "quotes_single" in wanted else '"'
        if violate in ("quotes_single", "quotes_double"):
            quote = '"' if quote == "'" else "'"
        text = requote(text, quote)
    delimiter = "'''" if violate == "quotes_docstring_triple_double" else '"""'
    text = docstring_quotes(text, delimiter)
    which = next((w for s, w in (("license_mit", "mit"), ("license_apache", "apache"))
                  if s in wanted), None)  # fmt: skip
    if violate in ("license_mit", "license_none"):
        which = "apache" if violate == "license_mit" else "mit"
    elif violate == "license_apache":
        which = "mit"
    if which:
        text = license_header(text, which)
    if unit and unit != "    ":
        text = reindent(text, unit)
    limit_now = 79 if "line_79" in wanted else 120 if "line_120" in wanted else None
    if limit_now and violate not in ("line_79", "line_120"):
        text = wrap_long_lines(text, limit_now, unit or "    ")
    elif violate in ("line_79", "line_120") and limit_now:
        text = wrap_long_lines(text, 79, unit or "    ") if "line_79" in wanted else text
        text = text.rstrip("\n") + "\n# " + "-" * (limit_now + 4) + "\n"
    return text


def _op_target(text: str, style_id: str, violate: str | None) -> dict[str, bool | None]:
    """Wanted spacing per operator kind (True: spaced, False: tight, None: as is)."""
    base: dict[str, dict[str, bool | None]] = {
        "op_space_around": {"arith": True, "compare": True, "assign": True},
        "op_space_none": {"arith": False, "compare": False, "assign": False},
        "op_space_minimal": {"arith": False, "compare": False, "assign": True},
        "op_space_arithmetic": {"arith": True, "compare": True, "assign": None},
    }
    if violate != style_id:
        return base[style_id]
    kinds = {use.kind for use in operator_uses(Code(text))}
    if style_id == "op_space_around":
        if "assign" in kinds:
            return {"arith": True, "compare": True, "assign": False}
        return base["op_space_none"]
    if style_id in ("op_space_none", "op_space_minimal"):
        if kinds & {"arith", "compare"} or style_id == "op_space_none":
            return base["op_space_around"]
        return base["op_space_none"]
    return {"arith": False, "compare": False, "assign": None}
