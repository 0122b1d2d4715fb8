"""Renderings of the PACIFIC instructions as Python, Java and C++ code or as prose.

The code renderings are what a model reads in a prompt, so they are plain, idiomatic
functions without comments. Each is self-contained and their names never clash, so
all 22 can live together: Python ``def`` s in one module, Java ``static`` methods in
one class, C++ free functions in one translation unit that includes ``HEADERS_CPP``.
The integration tests compile and run them against the reference implementations in
``_instructions``.
"""

from __future__ import annotations

from typing import Literal

from adhere.suites.pacific._instructions import by_id
from adhere.suites.pacific._render_cpp import HEADERS_CPP, cpp_source
from adhere.suites.pacific._render_java import java_source
from adhere.suites.pacific._render_nl import NL_TEXTS
from adhere.suites.pacific._render_python import python_source

__all__ = [
    "HEADERS_CPP",
    "LANGUAGES",
    "Language",
    "function_name",
    "render_code",
    "render_nl",
]

Language = Literal["python", "java", "cpp"]
LANGUAGES: tuple[Language, ...] = ("python", "java", "cpp")


def _check_language(language: str) -> None:
    if language not in LANGUAGES:
        raise ValueError(
            f"unknown PACIFIC rendering language {language!r}; expected one of "
            f"{', '.join(LANGUAGES)}"
        )


def _camel_case(snake: str) -> str:
    first, *rest = snake.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def function_name(paper_id: int, language: Language) -> str:
    """Name of the rendered function in a language.

    Args:
        paper_id: The instruction's paper number (1 to 22).
        language: ``"python"``, ``"java"`` or ``"cpp"``.

    Returns:
        The snake_case instruction name for Python and C++, its camelCase form for Java
        (``next_perfect_square`` becomes ``nextPerfectSquare``).

    Raises:
        ValueError: If the paper id or the language is unknown.
    """
    _check_language(language)
    name = by_id(paper_id).name
    return _camel_case(name) if language == "java" else name


def render_code(paper_id: int, language: Language) -> str:
    """Source code of one instruction in one language.

    Args:
        paper_id: The instruction's paper number (1 to 22).
        language: ``"python"`` (a ``def`` with type hints), ``"java"`` (``static``
            methods over ``long`` and ``String``, to be placed inside a class) or
            ``"cpp"`` (free functions over ``long long`` and ``std::string`` that
            need only ``HEADERS_CPP``).

    Returns:
        The function named ``function_name(paper_id, language)`` plus any helper it
        calls, without leading or trailing blank lines.

    Raises:
        ValueError: If the paper id or the language is unknown.
    """
    _check_language(language)
    by_id(paper_id)
    if language == "python":
        return python_source(paper_id)
    if language == "java":
        return java_source(paper_id)
    return cpp_source(paper_id)


def render_nl(paper_id: int) -> str:
    """Natural-language description of one instruction.

    Args:
        paper_id: The instruction's paper number (1 to 22).

    Returns:
        A precise English description of the step, including its edge rules.

    Raises:
        ValueError: If the paper id is unknown.
    """
    by_id(paper_id)
    return NL_TEXTS[paper_id]
