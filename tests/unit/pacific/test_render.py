"""Cheap checks of the PACIFIC renderings: presence, naming, shape, no clashes."""

from __future__ import annotations

import ast
import re

import pytest

from adhere.suites.pacific._instructions import INSTRUCTIONS, by_id
from adhere.suites.pacific._render import (
    HEADERS_CPP,
    LANGUAGES,
    function_name,
    render_code,
    render_nl,
)

IDS = [ins.paper_id for ins in INSTRUCTIONS]
JAVA_TYPES = {"int": "long", "str": "String"}
CPP_RETURN = {"int": "long long", "str": "std::string"}
CPP_PARAM = {"int": r"long long n", "str": r"(const std::string& s|std::string s)"}
PY_TYPES = {"int": "int", "str": "str"}


def test_languages() -> None:
    assert LANGUAGES == ("python", "java", "cpp")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("paper_id", IDS)
def test_every_id_renders(paper_id: int, language: str) -> None:
    code = render_code(paper_id, language)  # type: ignore[arg-type]
    assert code.strip()
    assert code == code.strip("\n")
    assert function_name(paper_id, language) in code  # type: ignore[arg-type]
    assert all(len(line) <= 100 for line in code.splitlines())
    assert "\t" not in code


@pytest.mark.parametrize("paper_id", IDS)
def test_names_follow_conventions(paper_id: int) -> None:
    snake = by_id(paper_id).name
    assert function_name(paper_id, "python") == snake
    assert function_name(paper_id, "cpp") == snake
    java = function_name(paper_id, "java")
    assert re.fullmatch(r"[a-z][a-zA-Z0-9]*", java)
    assert java.lower() == snake.replace("_", "")


def test_java_camel_case_examples() -> None:
    assert function_name(4, "java") == "nextPerfectSquare"
    assert function_name(19, "java") == "replaceVowelsWithGh"
    assert function_name(18, "java") == "caesarShift8"


@pytest.mark.parametrize("paper_id", IDS)
def test_python_shape(paper_id: int) -> None:
    ins = by_id(paper_id)
    tree = ast.parse(render_code(paper_id, "python"))
    assert not any(isinstance(node, ast.Import | ast.ImportFrom) for node in ast.walk(tree))
    defs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert len(defs) == len(tree.body)
    main = defs[ins.name]
    assert ast.unparse(main.returns) == PY_TYPES[ins.out_type]  # type: ignore[arg-type]
    (arg,) = main.args.args
    assert ast.unparse(arg.annotation) == PY_TYPES[ins.in_type]  # type: ignore[arg-type]
    assert "#" not in render_code(paper_id, "python")


@pytest.mark.parametrize("paper_id", IDS)
def test_java_shape(paper_id: int) -> None:
    ins = by_id(paper_id)
    code = render_code(paper_id, "java")
    name = function_name(paper_id, "java")
    param = "long n" if ins.in_type == "int" else "String s"
    assert f"static {JAVA_TYPES[ins.out_type]} {name}({param}) {{" in code
    assert code.startswith("static ")
    assert "int " not in code.split("{", 1)[0]
    assert "//" not in code and "/*" not in code
    assert "import " not in code
    assert code.count("{") == code.count("}")


@pytest.mark.parametrize("paper_id", IDS)
def test_cpp_shape(paper_id: int) -> None:
    ins = by_id(paper_id)
    code = render_code(paper_id, "cpp")
    name = function_name(paper_id, "cpp")
    signature = rf"{re.escape(CPP_RETURN[ins.out_type])} {name}\({CPP_PARAM[ins.in_type]}\) \{{"
    assert re.search(signature, code)
    assert "//" not in code and "/*" not in code
    assert "#include" not in code
    assert "using namespace" not in code
    assert code.count("{") == code.count("}")


def _defined_names(language: str) -> list[str]:
    patterns = {
        "python": r"^def (\w+)\(",
        "java": r"^static \w+ (\w+)\(",
        "cpp": r"^[\w:]+(?: \w+)* (\w+)\(",
    }
    names: list[str] = []
    for paper_id in IDS:
        names += re.findall(patterns[language], render_code(paper_id, language), re.MULTILINE)  # type: ignore[arg-type]
    return names


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_name_clashes(language: str) -> None:
    names = _defined_names(language)
    assert len(names) == len(set(names)) >= 22
    assert set(names) >= {function_name(pid, language) for pid in IDS}  # type: ignore[arg-type]


def test_cpp_headers() -> None:
    assert set(HEADERS_CPP) == {"<string>", "<vector>", "<algorithm>", "<cstdlib>"}


def test_nl_texts() -> None:
    texts = [render_nl(paper_id) for paper_id in IDS]
    assert all(text.strip() for text in texts)
    assert len(set(texts)) == len(texts)
    assert all(text.endswith(".") for text in texts)


@pytest.mark.parametrize(
    ("paper_id", "needles"),
    [
        (8, ["118", "Oganesson", "0"]),
        (9, ["N", "MMMM", "10000"]),
        (10, ["sunday", "0"]),
        (13, ["z", "A becomes Z"]),
        (14, ["counting only the letters", "z becoming a"]),
        (15, ["the letter m itself", "not a letter"]),
        (19, ["y is not a vowel"]),
        (20, ["empty string stays empty"]),
    ],
)
def test_nl_states_edge_rules(paper_id: int, needles: list[str]) -> None:
    text = render_nl(paper_id)
    for needle in needles:
        assert needle in text


@pytest.mark.parametrize("bad_id", [0, 23])
def test_unknown_id(bad_id: int) -> None:
    with pytest.raises(ValueError):
        render_code(bad_id, "python")
    with pytest.raises(ValueError):
        render_nl(bad_id)
    with pytest.raises(ValueError):
        function_name(bad_id, "java")


def test_unknown_language() -> None:
    with pytest.raises(ValueError, match="language"):
        render_code(1, "rust")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="language"):
        function_name(1, "rust")  # type: ignore[arg-type]
