"""The restyler: reference code rewritten to satisfy a set of winning styles.

The oracle policy answers a ManyIH sample with its reference code restyled by
:func:`restyle`; the noisy policy asks for some winning styles to be broken on purpose
(``violate``) and/or for the tests to fail (``break_tests``). Passes, in order:

1. syntax tree: return style, explicit ``return None``, singleton comparisons,
   docstrings, type hints, renaming variables (scope-aware; module-level names the
   tests use are kept), noisy carriers where breaking a style needs something to
   break (an ``assert`` comparing a parameter with ``None``, ``__all__ = [...]``, a
   module docstring, a bare ``return``);
2. ``ast.unparse`` (comments of the reference code are dropped here);
3. tokens: blank lines in function bodies, operator spacing, quotes, docstring
   delimiters, license header, indentation, wrapping long lines inside brackets.

Every pass keeps the code's behaviour. What cannot be done mechanically is reported,
never hidden: after restyling, each wanted style is checked with the checker that
scores models, and those still failing are returned in :attr:`Restyled.unmet` (e.g. a
string literal longer than the line limit, or a long line without brackets to break
at). ``line_unlimited`` cannot be broken at all.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass, field

from adhere.suites.manyih._check_lexical import operator_uses
from adhere.suites.manyih._checkers import check_styles
from adhere.suites.manyih._code import Code, parse_quietly
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
from adhere.suites.manyih._restyle_types import annotate
from adhere.suites.manyih._styles import STYLES
from adhere.suites.manyih._wrap import wrap_long_lines

__all__ = ["Restyled", "Task", "restyle"]

_NAMING = ("naming_snake", "naming_camel", "naming_consonant_start")
_LENGTH = ("var_min3", "var_min5", "var_max2", "var_single")
_UNITS = {"indent_2": "  ", "indent_4": "    ", "indent_tab": "\t"}
_UNIT_BROKEN = {"indent_spaces": "\t", "indent_tab": "    ", "indent_2": "    ", "indent_4": "  "}
_OP_BASE: dict[str, dict[str, bool | None]] = {
    "op_space_around": {"arith": True, "compare": True, "assign": True},
    "op_space_none": {"arith": False, "compare": False, "assign": False},
    "op_space_minimal": {"arith": False, "compare": False, "assign": True},
    "op_space_arithmetic": {"arith": True, "compare": True, "assign": None},
}


@dataclass(frozen=True)
class Task:
    """What the restyler knows about a sample."""

    reference: str
    entry: str
    summary: str = "Solve the task."
    hints: Hints = field(default_factory=Hints)
    keep: frozenset[str] = frozenset()
    """Names the tests use (module-level bindings of these are never renamed)."""


@dataclass(frozen=True)
class Restyled:
    """Restyled code, the wanted styles it still fails, and what was broken on purpose."""

    code: str
    unmet: dict[str, str]
    """Styles to satisfy that the code still fails, with the checker's reason."""
    noise: list[str]
    """What was broken on purpose (``broke indent_4``, ``renamed the tested function``)."""


def _rules(styles: set[str]) -> NameRules:
    case = "snake" if "naming_snake" in styles else "camel" if "naming_camel" in styles else None
    low = 5 if "var_min5" in styles else 3 if "var_min3" in styles else 1
    high = 1 if "var_single" in styles else 2 if "var_max2" in styles else None
    return NameRules(case, low, high, "naming_consonant_start" in styles)  # type: ignore[arg-type]


def restyle(
    task: Task,
    styles: Collection[str],
    *,
    violate: Collection[str] = (),
    break_tests: bool = False,
) -> Restyled:
    """Rewrite ``task.reference`` to satisfy ``styles`` (see the module docstring).

    Args:
        task: The reference code and what is known about the tested function.
        styles: Style ids to satisfy (a sample's winners).
        violate: Some of ``styles`` to break on purpose (not reported unmet).
        break_tests: Rename the tested function so the tests cannot call it.

    Raises:
        KeyError: an unknown style id.
        ValueError: ``violate`` names a style not in ``styles``.
    """
    wanted = set(styles)
    broken = set(violate)
    unknown = wanted - set(STYLES)
    if unknown:
        raise KeyError(f"unknown styles {sorted(unknown)}")
    if broken - wanted:
        raise ValueError(f"can only violate wanted styles, not {sorted(broken - wanted)}")
    keep = wanted - broken
    noise: list[str] = []
    tree = parse_quietly(task.reference)  # invalid escapes are unparsed away
    entry = task.entry

    unit = next((_UNITS[s] for s in ("indent_2", "indent_4", "indent_tab") if s in wanted), None)
    if unit is None and "indent_spaces" in wanted:
        unit = "    "
    for sid, other in _UNIT_BROKEN.items():
        if sid in broken:
            unit = other
            break
    limit = 79 if "line_79" in keep else 120 if "line_120" in keep else None

    _tree_returns(tree, wanted, broken, entry, noise)
    _tree_singletons(tree, wanted, broken, entry, noise)
    doc_mode = _doc_mode(wanted, broken)
    if doc_mode:
        docstrings(tree, doc_mode, entry=entry, summary=task.summary, width=limit,
                   unit_width=len(unit) if unit else 4)  # fmt: skip
    type_mode = next(
        (m for s, m in (("types_none", "none"), ("types_full", "full"),
                        ("types_args_only", "args_only"), ("types_args_required", "args_required"))
         if s in wanted),
        None,
    )  # fmt: skip
    if type_mode:
        annotate(tree, type_mode, entry=entry, hints=task.hints,
                 violate=sorted(s for s in broken if s.startswith("types_")))  # fmt: skip
    _carriers(tree, broken, entry)
    mapping = plan_renames(
        tree,
        _rules(wanted),
        keep=task.keep | {entry},
        violate=[s for s in (*_NAMING, *_LENGTH) if s in broken],
    )
    apply_renames(tree, mapping)
    if break_tests and break_entry(tree, entry):
        noise.append("renamed the tested function")

    text = ast.unparse(tree) + "\n"
    text = _text_passes(text, wanted, broken, entry, unit)
    noise += [f"broke {sid}" for sid in sorted(broken)]
    outcomes = check_styles(Code(text), sorted(keep))
    unmet = {sid: o.reason for sid, o in outcomes.items() if not o.passed}
    return Restyled(code=text, unmet=unmet, noise=noise)


def _tree_returns(
    tree: ast.Module, wanted: set[str], broken: set[str], entry: str, noise: list[str]
) -> None:
    if "return_variable" in wanted:
        if "return_variable" in broken:
            returns_direct(tree)
            wrap_return(tree, entry)
        else:
            returns_to_variable(tree)
    if "return_direct" in wanted:
        returns_direct(tree)
        if "return_direct" in broken and not store_before_return(tree, entry):
            noise.append("nothing to break return_direct with")
    if "return_explicit_none" in wanted:
        explicit_none(tree)
        if "return_explicit_none" in broken:
            bare_return(tree, entry)


def _tree_singletons(
    tree: ast.Module, wanted: set[str], broken: set[str], entry: str, noise: list[str]
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
    if not any(s.startswith("singleton_") for s in broken):
        return
    form = "eq" if "singleton_is" in broken else "is" if "singleton_eq" in broken else op or "is"
    if "singleton_variable_first" in broken:
        first = True
    elif "singleton_yoda" in broken:
        first = False
    else:
        first = order == "yoda"
    if not add_singleton_carrier(tree, entry, form, first):
        noise.append("nothing to break the singleton style with (no parameter)")


def _doc_mode(wanted: set[str], broken: set[str]) -> str | None:
    for sid, mode in (("doc_required", "none"), ("doc_none", "required"),
                      ("doc_oneline", "multiline")):  # fmt: skip
        if sid in broken:
            return mode
    for sid, mode in (("doc_required", "required"), ("doc_none", "none"),
                      ("doc_oneline", "oneline")):  # fmt: skip
        if sid in wanted:
            return mode
    return None


def _carriers(tree: ast.Module, broken: set[str], entry: str) -> None:
    """Statements some noisy answers need so there is something to break."""
    ops = [s for s in broken if s.startswith("op_space_")]
    if broken & {"quotes_single", "quotes_double"}:
        add_all_carrier(tree, entry, repeat=bool(ops))
    elif ops:
        kinds = {use.kind for use in operator_uses(Code(ast.unparse(tree)))}
        if not {"assign"} <= kinds or not kinds & {"arith", "compare"}:
            add_all_carrier(tree, entry, repeat=True)
    if "quotes_docstring_triple_double" in broken:
        add_module_docstring(tree)


def _text_passes(
    text: str, wanted: set[str], broken: set[str], entry: str, unit: str | None
) -> str:
    blank = {"blank_internal_none": 0, "blank_internal_one": 1, "blank_internal_required": 1}
    counts = [n for s, n in blank.items() if s in wanted]
    if counts:
        default = max(counts)
        per_function: dict[str, int] = {}
        if "blank_internal_required" in broken:
            default = 0
        elif "blank_internal_none" in broken:
            default = 1
        elif "blank_internal_one" in broken:
            per_function[entry] = 2
        text = insert_blank_lines(strip_blank_lines(text), per_function, default)
    target = _op_target(wanted, broken)
    if target is not None:
        text = respace_operators(text, target)
    if "quotes_single" in wanted or "quotes_double" in wanted:
        quote = "'" if "quotes_single" in wanted else '"'
        if "quotes_single" in broken:
            quote = '"'
        elif "quotes_double" in broken:
            quote = "'"
        text = requote(text, quote)
    broken_doc = "quotes_docstring_triple_double" in broken
    text = docstring_quotes(text, "'''" if broken_doc else '"""')
    which = next((w for s, w in (("license_mit", "mit"), ("license_apache", "apache"))
                  if s in wanted), None)  # fmt: skip
    if "license_mit" in broken:
        which = "apache"
    elif broken & {"license_apache", "license_none"}:
        which = "mit"
    if which:
        text = license_header(text, which)
    if unit and unit != "    ":
        text = reindent(text, unit)
    limit = 79 if "line_79" in wanted else 120 if "line_120" in wanted else None
    if limit == 79 and "line_79" in broken:
        limit = None if "line_120" in broken else 120 if "line_120" in wanted else None
    if limit is not None and not ("line_120" in broken and limit == 120):
        text = wrap_long_lines(text, limit, unit or "    ")
    if broken & {"line_79", "line_120"}:
        over = 120 if "line_120" in broken else 79
        text = text.rstrip("\n") + "\n# " + "-" * (over + 4) + "\n"
    return text


def _op_target(wanted: set[str], broken: set[str]) -> dict[str, bool | None] | None:
    """Wanted spacing per operator kind (True: spaced, False: tight, None: as is)."""
    ops = [s for s in _OP_BASE if s in wanted]
    if not ops:
        return None
    kept = [s for s in ops if s not in broken]
    target = dict(_OP_BASE[kept[0] if kept else ops[0]])
    if "op_space_none" in broken:
        target = dict(_OP_BASE["op_space_around"])
    if "op_space_minimal" in broken:
        target.update(arith=True, compare=True)
    if "op_space_arithmetic" in broken:
        target.update(arith=False, compare=False)
    if "op_space_around" in broken:
        target["assign"] = False
    return target
