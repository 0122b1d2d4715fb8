"""The 41 ManyIH coding styles in 12 groups, and which pairs of them conflict.

Each style has an id (the dataset's ``style_id``), its group (``style_key``), the
dataset's category, a description written for this project (used when the
generator writes new samples; loaded samples keep their own instruction text) and
the styles it conflicts with. Two styles conflict when no code that exercises them
can satisfy both (two spaces versus tabs); styles that can hold together do not
(``line_79`` implies ``line_120``; full type hints satisfy "arguments required").
The relation is the one the public data uses; a test checks it against every sample.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GROUPS", "STYLES", "StyleDef", "conflicts", "group_of", "style"]


@dataclass(frozen=True)
class StyleDef:
    """One style instruction of the coding subset."""

    id: str
    group: str
    category: str
    description: str
    conflicts_with: frozenset[str]


_RAW: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    # (id, group, category, description, conflicting ids)
    ("indent_2", "indent", "formatting",
     "Indent every block by exactly two spaces per level; never indent with tabs.",
     ("indent_4", "indent_tab")),
    ("indent_4", "indent", "formatting",
     "Indent every block by exactly four spaces per level; never indent with tabs.",
     ("indent_2", "indent_tab")),
    ("indent_tab", "indent", "formatting",
     "Indent every block with tab characters, one tab per level; no spaces.",
     ("indent_2", "indent_4", "indent_spaces")),
    ("indent_spaces", "indent", "formatting",
     "Indent with spaces only; tab characters must not be used for indentation.",
     ("indent_tab",)),
    ("quotes_single", "quotes", "formatting",
     "Write string literals with single quotes (').",
     ("quotes_double",)),
    ("quotes_double", "quotes", "formatting",
     'Write string literals with double quotes (").',
     ("quotes_single",)),
    ("quotes_docstring_triple_double", "quotes", "formatting",
     'Delimit every docstring with triple double quotes (""").',
     ()),
    ("naming_snake", "naming_convention", "naming",
     "Name every variable and function parameter in snake_case.",
     ("naming_camel",)),
    ("naming_camel", "naming_convention", "naming",
     "Name every variable and function parameter in camelCase.",
     ("naming_snake",)),
    ("naming_consonant_start", "naming_convention", "naming",
     "Every variable name must begin with a consonant (any letter but a, e, i, o, u).",
     ()),
    ("op_space_around", "operator_spacing", "formatting",
     "Surround every operator with spaces, as in `total = a + b`.",
     ("op_space_minimal", "op_space_none")),
    ("op_space_none", "operator_spacing", "formatting",
     "Write operators with no spaces around them, as in `total=a+b`.",
     ("op_space_arithmetic", "op_space_around", "op_space_minimal")),
    ("op_space_minimal", "operator_spacing", "formatting",
     "Put spaces around the assignment `=` and nowhere else: `total = a+b`.",
     ("op_space_arithmetic", "op_space_around", "op_space_none")),
    ("op_space_arithmetic", "operator_spacing", "formatting",
     "Put spaces around arithmetic and comparison operators (+, -, *, /, ==, <, ...); "
     "spacing around `=` is up to you.",
     ("op_space_minimal", "op_space_none")),
    ("types_full", "type_hints", "typing",
     "Annotate every function parameter and every return type.",
     ("types_args_only", "types_none")),
    ("types_none", "type_hints", "typing",
     "Use no type annotations at all.",
     ("types_args_only", "types_args_required", "types_full")),
    ("types_args_only", "type_hints", "typing",
     "Annotate function parameters but never return types.",
     ("types_full", "types_none")),
    ("types_args_required", "type_hints", "typing",
     "Annotate every function parameter; return annotations are optional.",
     ("types_none",)),
    ("var_min3", "variable_name_length", "naming",
     "Variable names must be at least three characters long.",
     ("var_max2", "var_single")),
    ("var_single", "variable_name_length", "naming",
     "Every variable name must be a single character.",
     ("var_min3", "var_min5")),
    ("var_min5", "variable_name_length", "naming",
     "Variable names must be at least five characters long.",
     ("var_max2", "var_single")),
    ("var_max2", "variable_name_length", "naming",
     "Variable names must be at most two characters long.",
     ("var_min3", "var_min5")),
    ("license_mit", "license", "header",
     "Put an MIT License notice in the file.",
     ("license_apache", "license_none")),
    ("license_apache", "license", "header",
     "Put an Apache License 2.0 notice in the file.",
     ("license_mit", "license_none")),
    ("license_none", "license", "header",
     "The file must carry no license notice.",
     ("license_apache", "license_mit")),
    ("doc_required", "function_doc", "documentation",
     "Give every function a triple-quoted docstring saying what it does.",
     ("doc_none",)),
    ("doc_none", "function_doc", "documentation",
     "Functions must not have docstrings.",
     ("doc_required",)),
    ("doc_oneline", "function_doc", "documentation",
     "Docstrings, where present, must fit on a single line.",
     ()),
    ("blank_internal_none", "internal_blank_lines", "formatting",
     "Leave no blank line inside a function body.",
     ("blank_internal_one", "blank_internal_required")),
    ("blank_internal_one", "internal_blank_lines", "formatting",
     "Each function body contains exactly one blank line.",
     ("blank_internal_none",)),
    ("blank_internal_required", "internal_blank_lines", "formatting",
     "Each function body contains at least one blank line.",
     ("blank_internal_none",)),
    ("return_variable", "return_style", "logic",
     "Assign a computed result to a variable and return that variable.",
     ("return_direct",)),
    ("return_direct", "return_style", "logic",
     "Return expressions directly instead of assigning them to a variable first.",
     ("return_variable",)),
    ("return_explicit_none", "return_style", "logic",
     "Where a function returns nothing, write `return None` explicitly "
     "(no bare `return`, no falling off the end).",
     ()),
    ("singleton_is", "singleton", "comparison",
     "Never compare with True, False or None using == or !=; use `is`/`is not` "
     "or truthiness.",
     ("singleton_eq",)),
    ("singleton_eq", "singleton", "comparison",
     "Compare with True, False or None using == or != only.",
     ("singleton_is",)),
    ("singleton_variable_first", "singleton", "comparison",
     "In comparisons with True, False or None, the variable comes first: `x is None`.",
     ("singleton_yoda",)),
    ("singleton_yoda", "singleton", "comparison",
     "In comparisons with True, False or None, the singleton comes first: `None is x`.",
     ("singleton_variable_first",)),
    ("line_79", "line_length", "formatting",
     "No line may be longer than 79 characters.",
     ()),
    ("line_120", "line_length", "formatting",
     "No line may be longer than 120 characters.",
     ()),
    ("line_unlimited", "line_length", "formatting",
     "Lines may be as long as you like.",
     ()),
)  # fmt: skip

STYLES: dict[str, StyleDef] = {
    sid: StyleDef(sid, group, category, text, frozenset(others))
    for sid, group, category, text, others in _RAW
}
"""Every style by id, in catalogue order."""

GROUPS: dict[str, tuple[str, ...]] = {}
for _def in STYLES.values():
    GROUPS[_def.group] = (*GROUPS.get(_def.group, ()), _def.id)
"""Style ids of each of the 12 groups, in catalogue order."""


def style(style_id: str) -> StyleDef:
    """The definition of a style; KeyError naming the known ids otherwise."""
    try:
        return STYLES[style_id]
    except KeyError:
        raise KeyError(f"unknown ManyIH style {style_id!r}") from None


def group_of(style_id: str) -> str:
    """The group (``style_key``) of a style."""
    return style(style_id).group


def conflicts(a: str, b: str) -> bool:
    """Whether two styles cannot both hold."""
    return b in style(a).conflicts_with
