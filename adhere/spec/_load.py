"""Loading specs from YAML (Kubernetes shape) and instances from JSONL, with clear errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from adhere.core import Instance
from adhere.errors import SpecError
from adhere.spec._read import jsonl_lines, parse_yaml_documents, read_text
from adhere.spec._resources import API_VERSION, Benchmark, JudgePanel, Resource, Rollout

_KINDS: dict[str, type[Benchmark] | type[Rollout] | type[JudgePanel]] = {
    "Benchmark": Benchmark,
    "Rollout": Rollout,
    "JudgePanel": JudgePanel,
}

M = TypeVar("M", bound=BaseModel)


def format_location(loc: tuple[int | str, ...]) -> str:
    """Render a pydantic error location as a field path: ``spec.models[1].endpoint``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def _first_error(exc: ValidationError, prefix: str = "") -> tuple[str, str]:
    """Field path and message of each error, joined when there are several."""
    fields: list[str] = []
    messages: list[str] = []
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
        path = format_location(loc)
        full = (
            ".".join(p for p in (prefix, path) if p) if not path.startswith("[") else prefix + path
        )
        fields.append(full)
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field (not part of the spec)"
        elif err["type"] == "missing":
            msg = "required field is missing"
        messages.append(f"{full}: {msg}" if full else msg)
    return (fields[0] if fields else prefix), "; ".join(messages)


def validate_model(model: type[M], data: Any, *, file: str, prefix: str = "") -> M:
    """Validate ``data`` as ``model``; on failure raise SpecError naming file and field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        field, message = _first_error(exc, prefix)
        error = SpecError(message, file=file)
        error.field = field
        raise error from None


def parse_resource(data: Any, *, file: str, index: int = 0) -> Resource:
    """Turn one decoded YAML document into a Benchmark, Rollout or JudgePanel."""
    where = f"{file} (document {index + 1})" if index else file
    if not isinstance(data, dict):
        raise SpecError("expected a mapping with apiVersion, kind, metadata and spec", file=where)
    api_version = data.get("apiVersion")
    if api_version != API_VERSION:
        raise SpecError(
            f"expected {API_VERSION!r}, got {api_version!r}", file=where, field="apiVersion"
        )
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _KINDS:
        raise SpecError(f"expected one of {sorted(_KINDS)}, got {kind!r}", file=where, field="kind")
    return validate_model(_KINDS[kind], data, file=where)


def load_resources(path: str | Path) -> list[Resource]:
    """Load every resource of a (multi-document) YAML file."""
    documents = parse_yaml_documents(read_text(path), file=str(path))
    if not documents:
        raise SpecError("no YAML documents found", file=str(path))
    return [parse_resource(doc, file=str(path), index=i) for i, doc in enumerate(documents)]


def is_bindings_document(document: Any) -> bool:
    """Whether a decoded YAML document is a verifier bindings file, not a resource.

    A bindings file is a mapping with a ``bindings`` list and no ``kind`` or
    ``apiVersion`` (syntax: ``docs/verifiers.md``).
    """
    return (
        isinstance(document, dict)
        and "bindings" in document
        and "kind" not in document
        and "apiVersion" not in document
    )


def is_bindings_file(path: str | Path) -> bool:
    """Whether ``path`` holds a bindings file (SpecError when it cannot be read as YAML)."""
    documents = parse_yaml_documents(read_text(path), file=str(path))
    return len(documents) == 1 and is_bindings_document(documents[0])


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded object) for each non-blank line of a JSONL file.

    Raises:
        SpecError: The file cannot be read, is not UTF-8, or a line is not valid JSON
            (or nests too deep); the message names the file and the line.
    """
    return jsonl_lines(path)


def load_instances(path: str | Path) -> list[Instance]:
    """Load instances in adhere's own JSONL format (one Instance a line)."""
    instances = []
    seen: set[str] = set()
    for number, data in iter_jsonl(path):
        instance = validate_model(Instance, data, file=f"{path}:{number}")
        if instance.id in seen:
            raise SpecError(
                f"duplicate instance id {instance.id!r}", file=f"{path}:{number}", field="id"
            )
        seen.add(instance.id)
        instances.append(instance)
    return instances
