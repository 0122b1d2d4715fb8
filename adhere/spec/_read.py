"""Reading input files safely: UTF-8 text, strict YAML and bounded JSON, with clear errors.

Every spec, dataset and bindings file adhere reads goes through these functions, so
the same mistakes give the same :class:`~adhere.errors.SpecError` wherever they are
made, each naming the file and the line:

- a file that is not UTF-8 text (the first bad byte's line and column);
- malformed YAML or JSON (the line and column);
- a key given twice in one YAML mapping (both lines: YAML keeps the last silently,
  which once turned ``perLanguage: 2`` into 999);
- values nested deeper than :data:`MAX_DEPTH` levels, or YAML anchors and aliases
  expanding to more than :data:`MAX_VALUES` values (they would exhaust the stack or
  the time of whatever reads the data next);
- integers with more digits than Python converts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from adhere.errors import SpecError

__all__ = [
    "MAX_DEPTH",
    "MAX_VALUES",
    "check_depth",
    "check_path_text",
    "data_path",
    "decode_text",
    "json_kind",
    "jsonl_lines",
    "parse_json",
    "parse_yaml",
    "parse_yaml_documents",
    "read_text",
]

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings accepted in any input file."""
MAX_VALUES = 2_000_000
"""Most values a YAML document may expand to through anchors and aliases."""


class _InputError(Exception):
    """Raised inside the YAML loader; carries the line (1-based) it is about."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _line(node: Node) -> int:
    return int(node.start_mark.line) + 1


def _value_error(exc: Exception) -> str:
    if "integer string conversion" in str(exc):
        return "an integer has more than 4,300 digits"
    return str(exc)


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader with duplicate keys and deep nesting refused."""

    _depth = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _InputError(
                    f"values nested deeper than {MAX_DEPTH} levels", int(mark.line) + 1
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_int(self, node: ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError as exc:
            raise _InputError(_value_error(exc), _line(node)) from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _value in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            if not isinstance(key_node, ScalarNode):
                continue  # the base loader refuses unhashable keys itself
            key = self.construct_object(key_node, deep=False)
            try:
                first = seen.get(key)
            except TypeError:
                continue
            if first is not None:
                raise _InputError(
                    f"duplicate key {key!r} (first given at line {first}); a key may "
                    "appear once in a mapping",
                    _line(key_node),
                )
            seen[key] = _line(key_node)
        return super().construct_mapping(node, deep=deep)


def _expanded_size(root: Node) -> int:
    """How many values ``root`` expands to, aliases counted at each use (iteratively).

    Raises:
        _InputError: A value contains itself (a recursive alias).
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        if isinstance(node, SequenceNode):
            children: list[Node] = list(node.value)
        elif isinstance(node, MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            sizes[id(node)] = 1
            continue
        if done:
            open_nodes.discard(id(node))
            sizes[id(node)] = min(MAX_VALUES + 1, 1 + sum(sizes[id(c)] for c in children))
            continue
        if id(node) in open_nodes:
            raise _InputError("a value contains itself (a recursive alias)", _line(node))
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def _yaml_error(exc: yaml.YAMLError, text: str) -> str:
    if isinstance(exc, yaml.reader.ReaderError):
        before = text[: exc.position]
        line = before.count("\n") + 1
        column = exc.position - (before.rfind("\n") + 1) + 1
        character = exc.character if isinstance(exc.character, str) else chr(exc.character)
        return (
            f"malformed YAML at line {line}, column {column}: the character "
            f"{character!r} is not allowed in YAML"
        )
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or str(exc).replace("\n", " ")
    return f"malformed YAML{where}: {problem}"


def parse_yaml_documents(text: str, *, file: str) -> list[Any]:
    """The documents of a (multi-document) YAML text, empty documents left out.

    Raises:
        SpecError: Naming ``file`` and the line: malformed YAML, a duplicate key,
            nesting deeper than :data:`MAX_DEPTH`, aliases expanding beyond
            :data:`MAX_VALUES` values, or an integer too long to convert.
    """
    documents: list[Any] = []
    loader: _StrictLoader | None = None
    try:
        loader = _StrictLoader(text)
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            if _expanded_size(node) > MAX_VALUES:
                raise _InputError(
                    f"anchors and aliases expand to more than {MAX_VALUES:,} values",
                    _line(node),
                )
            value = loader.construct_document(node)
            if value is not None:
                documents.append(value)
    except _InputError as exc:
        raise SpecError(f"line {exc.line}: {exc}", file=file) from None
    except yaml.YAMLError as exc:
        raise SpecError(_yaml_error(exc, text), file=file) from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of 5,000 digits
        raise SpecError(f"malformed YAML: {_value_error(exc)}", file=file) from None
    finally:
        if loader is not None:
            loader.dispose()
    return documents


def parse_yaml(text: str, *, file: str) -> Any:
    """The single document of a YAML text (``None`` when empty); see :func:`parse_yaml_documents`.

    Raises:
        SpecError: As :func:`parse_yaml_documents`, or the text holds several documents.
    """
    documents = parse_yaml_documents(text, file=file)
    if len(documents) > 1:
        raise SpecError(f"expected one YAML document, found {len(documents)}", file=file)
    return documents[0] if documents else None


def check_depth(value: Any, *, file: str, limit: int = MAX_DEPTH) -> None:
    """Refuse lists and mappings nested deeper than ``limit`` levels (checked iteratively)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            raise SpecError(f"values nested deeper than {limit} levels", file=file)
        stack.extend((child, depth + 1) for child in children)


def _deep_line(text: str, limit: int) -> int:
    """The line (1-based) where JSON ``text`` first nests deeper than ``limit`` levels."""
    depth, line, in_string, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return line
        elif char in "]}":
            depth -= 1
    return line


def parse_json(text: str, *, file: str, line: int | None = None) -> Any:
    """One JSON value, nesting bounded by :data:`MAX_DEPTH`.

    Args:
        text: The JSON text.
        file: The file it comes from, for messages.
        line: The line of ``file`` that holds ``text`` (JSONL), for messages.

    Raises:
        SpecError: Naming ``file`` and the line (and column): invalid JSON, nesting
            too deep, or an integer too long to convert.
    """
    at = f"line {line}: " if line is not None else ""
    too_deep = False
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}"
        if line is None:
            where = f"line {exc.lineno}, {where}"
        raise SpecError(f"{at}invalid JSON at {where}: {exc.msg}", file=file) from None
    except RecursionError:
        too_deep = True
    except ValueError as exc:  # an integer of 5,000 digits
        if not at:
            long_number = re.search(r"\d{4301}", text)
            at = f"line {text.count(chr(10), 0, long_number.start()) + 1}: " if long_number else ""
        raise SpecError(f"{at}invalid JSON: {_value_error(exc)}", file=file) from None
    if not too_deep:
        try:
            check_depth(value, file=file)
        except SpecError:
            too_deep = True
    if too_deep:
        at = at or f"line {_deep_line(text, MAX_DEPTH)}: "
        raise SpecError(f"{at}values nested deeper than {MAX_DEPTH} levels", file=file)
    return value


def decode_text(data: bytes, *, file: str) -> str:
    """``data`` decoded as UTF-8; SpecError naming the line and column of a bad byte."""
    try:
        return data.decode("utf-8-sig")  # a leading byte-order mark is dropped
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SpecError(
            f"line {line}, column {column}: not UTF-8 text (byte 0x{data[exc.start]:02x} at "
            f"offset {exc.start}); save the file as UTF-8",
            file=file,
        ) from None


def check_path_text(value: str) -> str:
    """``value`` if it can name a local file (no NUL, components of at most 255 bytes).

    Raises:
        ValueError: Saying what is wrong.
    """
    if not value.strip():
        raise ValueError("expected a file path, got an empty string")
    if "\x00" in value:
        raise ValueError("a file path cannot hold a NUL character")
    if len(value.encode("utf-8", "surrogateescape")) > 4096 or any(
        len(part.encode("utf-8", "surrogateescape")) > 255 for part in value.split("/")
    ):
        raise ValueError("the file path is too long (at most 255 bytes a name, 4096 in all)")
    return value


def data_path(value: Any, *, base_dir: Path, file: str, field: str) -> Path:
    """A path option of a spec, relative to ``base_dir`` unless absolute.

    Raises:
        SpecError: Naming ``file`` and ``field``: not a string, or not a usable path.
    """
    if not isinstance(value, str):
        raise SpecError(f"expected a file path, got {json_kind(value)}", file=file, field=field)
    try:
        path = Path(check_path_text(value))
    except ValueError as exc:
        raise SpecError(str(exc), file=file, field=field) from None
    return path if path.is_absolute() else base_dir / path


def json_kind(value: Any) -> str:
    """What a decoded JSON/YAML value is, in the words of those formats (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def read_text(path: str | Path) -> str:
    """A file's text, decoded as UTF-8.

    Raises:
        SpecError: Naming the file: it cannot be read (missing, a directory,
            permissions) or is not UTF-8 (with the line and column of the first bad byte).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpecError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    return decode_text(data, file=str(path))


def jsonl_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) of each non-blank line of a JSONL file.

    Raises:
        SpecError: As :func:`read_text`, or a line is not valid JSON (``file:line``).
    """
    text = read_text(path)
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, parse_json(line, file=str(path), line=number)


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
