"""The 30 VeriCode instructions (SUITES.md §4): prompts written by this project.

Ruff selectors follow the published table, with ranges written out as explicit codes
(``ANN001–003`` → ``ANN001, ANN002, ANN003``; ``RET504–RET508`` → five codes). The
rules are those of the pinned Ruff 0.11.13; the ones marked preview need
``--preview``.
"""

from __future__ import annotations

from adhere.suites.vericode._instruction import Instruction, Param

__all__ = ["CONFLICTS", "INSTRUCTIONS", "by_id", "conflicts"]

_FILES = frozenset({"files"})
_ERRORS = frozenset({"errors"})
_FINAL = " Reply with the complete revised code."

INSTRUCTIONS: tuple[Instruction, ...] = (
    Instruction(
        "style_1", "style", "PEP 8 layout",
        "Lay the code out as PEP 8 asks: spacing around operators and after commas, "
        "indentation, blank lines, no trailing whitespace.",
        "Reformat the code so that its layout follows PEP 8 (spacing, indentation, blank "
        "lines, no trailing whitespace)." + _FINAL,
        select=("E", "W"),
    ),
    Instruction(
        "style_2", "style", "sorted imports",
        "Group and sort the imports the way isort does: standard library, third party, "
        "then local modules, alphabetically within each group.",
        "Sort and group the imports as isort would (standard library, third party, "
        "local; alphabetical within groups)." + _FINAL,
        select=("I",),
    ),
    Instruction(
        "style_3", "style", "line length",
        "Keep every line at most {line_length} characters long.",
        "Rewrap the code so that no line is longer than {line_length} characters." + _FINAL,
        select=("E501",),
        settings=(("line-length", "line_length"),),
        params=(Param("line_length", 79, minimum=40, maximum=200),),
    ),
    Instruction(
        "style_4", "style", "trailing commas",
        "Put a trailing comma after the last item of every collection, call or signature "
        "that spans several lines.",
        "Add a trailing comma after the last element of each multi-line collection, call "
        "or parameter list." + _FINAL,
        select=("COM812",),
    ),
    Instruction(
        "style_5", "style", "consistent quotes",
        "Write every string literal with double quotes (use single quotes only to avoid "
        "escaping a double quote).",
        "Change the string literals to double quotes throughout (single quotes only where "
        "they avoid escaping)." + _FINAL,
        select=("Q",),
    ),
    Instruction(
        "style_6", "style", "local variable names",
        "Name every local variable inside a function in lower_snake_case.",
        "Rename the local variables inside functions to lower_snake_case." + _FINAL,
        select=("N806",),
    ),
    Instruction(
        "style_7", "style", "no redundant open modes",
        "When you open a file, leave out mode arguments that are the default (such as "
        '"r" or "rt").',
        'Remove mode arguments of open() calls that only repeat the default ("r", "rt").'
        + _FINAL,
        select=("UP015",),
        needs=_FILES,
    ),
    Instruction(
        "style_8", "style", "no magic values",
        "Do not compare against unexplained literal numbers or strings; give such values "
        "a named constant.",
        "Replace literal values used in comparisons with named constants." + _FINAL,
        select=("PLR2004",),
    ),
    Instruction(
        "style_9", "style", "no unused unpacked variables",
        "When unpacking a tuple, name the parts you do not use with a leading underscore.",
        "Prefix unpacked variables that are never used with an underscore." + _FINAL,
        select=("RUF059",),
        preview=True,
    ),
    Instruction(
        "logic_1", "logic", "pyflakes clean",
        "Leave no unused imports or variables, undefined names, or other mistakes pyflakes "
        "would report.",
        "Remove unused imports and variables and fix undefined names and other pyflakes "
        "findings." + _FINAL,
        select=("F",),
    ),
    Instruction(
        "logic_2", "logic", "shallow nesting",
        "Nest control-flow blocks (if, for, while, try, with) at most {max_nested_blocks} "
        "deep inside any function.",
        "Flatten the control flow so that no function nests blocks more than "
        "{max_nested_blocks} deep (early returns or helper functions help)." + _FINAL,
        select=("PLR1702",),
        settings=(("lint.pylint.max-nested-blocks", "max_nested_blocks"),),
        preview=True,
        params=(Param("max_nested_blocks", 1, minimum=1, maximum=20),),
    ),
    Instruction(
        "logic_3", "logic", "few branches",
        "Give no function more than {max_branches} branches (if/elif/else, loops, "
        "try/except).",
        "Restructure the code so that each function has at most {max_branches} branches."
        + _FINAL,
        select=("PLR0912",),
        settings=(("lint.pylint.max-branches", "max_branches"),),
        params=(Param("max_branches", 2, minimum=1, maximum=50),),
    ),
    Instruction(
        "logic_4", "logic", "short functions",
        "Keep each function to at most {max_statements} statements; split longer logic "
        "into helpers.",
        "Split the code so that no function has more than {max_statements} statements."
        + _FINAL,
        select=("PLR0915",),
        settings=(("lint.pylint.max-statements", "max_statements"),),
        params=(Param("max_statements", 6, minimum=1, maximum=100),),
    ),
    Instruction(
        "logic_5", "logic", "few locals",
        "Use at most {max_locals} local variables in any function.",
        "Reduce the local variables of every function to at most {max_locals}." + _FINAL,
        select=("PLR0914",),
        settings=(("lint.pylint.max-locals", "max_locals"),),
        preview=True,
        params=(Param("max_locals", 2, minimum=1, maximum=50),),
    ),
    Instruction(
        "logic_6", "logic", "no redundant control flow",
        "Avoid redundant control flow: no variable assigned only to be returned, and no "
        "else/elif after a branch that returns, raises, breaks or continues.",
        "Remove redundant control flow: return expressions directly instead of through a "
        "temporary, and drop else/elif after return, raise, break or continue." + _FINAL,
        select=("RET504", "RET505", "RET506", "RET507", "RET508"),
    ),
    Instruction(
        "logic_7", "logic", "low complexity",
        "Keep the cyclomatic complexity of every function at most {max_complexity}.",
        "Simplify the code until every function has a cyclomatic complexity of at most "
        "{max_complexity}." + _FINAL,
        select=("C901",),
        settings=(("lint.mccabe.max-complexity", "max_complexity"),),
        params=(Param("max_complexity", 2, minimum=1, maximum=50),),
    ),
    Instruction(
        "logic_8", "logic", "comprehensions over loops",
        "Build lists and dictionaries with comprehensions (or list()/dict()) instead of "
        "loops that append or assign item by item.",
        "Replace loops that build a list or dictionary item by item with comprehensions."
        + _FINAL,
        select=("PERF401", "PERF402", "PERF403"),
    ),
    Instruction(
        "logic_9", "logic", "simple conditions",
        "Use at most {max_bool_expr} Boolean operand(s) in the condition of any if "
        "statement.",
        "Simplify the conditions of if statements to at most {max_bool_expr} Boolean "
        "operand(s) each (named helpers or early returns help)." + _FINAL,
        select=("PLR0916",),
        settings=(("lint.pylint.max-bool-expr", "max_bool_expr"),),
        preview=True,
        params=(Param("max_bool_expr", 1, minimum=1, maximum=20),),
    ),
    Instruction(
        "doc_1", "doc", "type annotations",
        "Annotate every function argument and every return type (Any is not allowed).",
        "Add type annotations to all arguments and return values, without using Any."
        + _FINAL,
        select=("ANN001", "ANN002", "ANN003", "ANN201", "ANN202", "ANN204", "ANN205",
                "ANN206", "ANN401"),
    ),  # fmt: skip
    Instruction(
        "doc_2", "doc", "docstring line length",
        "Keep every docstring and comment line at most {line_length} characters long.",
        "Rewrap docstrings and comments to lines of at most {line_length} characters."
        + _FINAL,
        select=("W505",),
        settings=(("lint.pycodestyle.max-doc-length", "line_length"),),
        params=(Param("line_length", 72, minimum=20, maximum=200),),
    ),
    Instruction(
        "doc_3", "doc", "docstring convention",
        "Give the module and every public function and class a docstring in the "
        "{convention} convention.",
        "Add or rewrite docstrings so that the module and every public function and class "
        "follow the {convention} docstring convention." + _FINAL,
        select=("D",),
        settings=(("lint.pydocstyle.convention", "convention"),),
        params=(Param("convention", "pep257", choices=("google", "numpy", "pep257")),),
    ),
    Instruction(
        "doc_4", "doc", "code only",
        "Reply with the Python code alone: no explanation and no Markdown code fences.",
        "Give the revised code alone, with no explanation and no Markdown fences.",
        custom="bare_code",
        whole_reply=True,
    ),
    Instruction(
        "doc_5", "doc", "no comments or docstrings",
        "Write no comments and no docstrings.",
        "Remove every comment and docstring from the code." + _FINAL,
        custom="no_comments",
    ),
    Instruction(
        "doc_6", "doc", "code and JSON summary",
        "Reply with exactly two fenced blocks and nothing else: first a ```python block "
        'with the code, then a ```json block with an object holding "summary" (one '
        'sentence on the approach) and "functions" (the names defined).',
        'Reply with exactly two fenced blocks: the revised code in a ```python block, then '
        'a ```json block with "summary" and "functions" describing it.',
        custom="python_json",
        whole_reply=True,
    ),
    Instruction(
        "error_1", "error", "exception chaining",
        "When raising a new exception inside an except block, chain it with "
        "`raise … from err` (or `from None`).",
        "Chain every exception raised inside an except block with `from err` or "
        "`from None`." + _FINAL,
        select=("B904",),
        needs=_ERRORS,
    ),
    Instruction(
        "error_2", "error", "exception messages in variables",
        "Do not pass string literals or f-strings straight to an exception; assign the "
        "message to a variable first.",
        "Assign exception messages to a variable before raising, instead of passing "
        "literals or f-strings directly." + _FINAL,
        select=("EM101", "EM102", "EM103"),
        needs=_ERRORS,
    ),
    Instruction(
        "error_3", "error", "OSError, not its aliases",
        "Catch and raise OSError itself, not its aliases (IOError, EnvironmentError, "
        "socket.error, select.error).",
        "Replace the aliases of OSError (IOError, EnvironmentError, …) with OSError."
        + _FINAL,
        select=("UP024",),
        needs=frozenset({"files", "errors"}),
    ),
    Instruction(
        "error_4", "error", "short raise messages",
        "Keep long messages out of raise statements: define a custom exception class "
        "that holds the message, or raise with short arguments.",
        "Move long messages out of raise statements (into a custom exception class)."
        + _FINAL,
        select=("TRY003",),
        needs=_ERRORS,
    ),
    Instruction(
        "library_1", "library", "pathlib",
        "Work with files and paths through pathlib, not os.path, os functions or open().",
        "Rewrite file and path handling with pathlib instead of os.path, os and open()."
        + _FINAL,
        select=("PTH",),
        needs=_FILES,
    ),
    Instruction(
        "library_2", "library", "idiomatic pandas",
        "Use pandas idiomatically: no generic `df` names, no inplace=True, and .to_numpy() "
        "instead of .values.",
        "Make the pandas code idiomatic: descriptive DataFrame names, no inplace=True, "
        ".to_numpy() instead of .values." + _FINAL,
        select=("PD901", "PD002", "PD011"),
        needs=frozenset({"pandas"}),
    ),
)  # fmt: skip

_BY_ID = {i.id: i for i in INSTRUCTIONS}

CONFLICTS: frozenset[frozenset[str]] = frozenset(
    {
        frozenset({"doc_4", "doc_6"}),  # bare code vs two fenced blocks
        frozenset({"doc_3", "doc_5"}),  # docstrings required vs forbidden
        frozenset({"doc_2", "doc_5"}),  # docstring line length is moot without docstrings
    }
)
"""Pairs that cannot both be asked of one answer (or where one makes the other moot)."""


def by_id(instruction_id: str) -> Instruction:
    """The instruction with this id.

    Raises:
        KeyError: No such instruction (the message lists the known ids).
    """
    try:
        return _BY_ID[instruction_id]
    except KeyError:
        raise KeyError(
            f"unknown VeriCode instruction {instruction_id!r}; known: {', '.join(_BY_ID)}"
        ) from None


def conflicts(first: str, second: str) -> bool:
    """Whether two instructions conflict (an instruction never conflicts with itself)."""
    return frozenset({first, second}) in CONFLICTS
