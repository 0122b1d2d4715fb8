"""Binding published checklist items to verifiers without editing each item.

A bindings file (YAML) is a list of rules; each rule matches checks and names the
verifier (and its parameters) to bind::

    bindings:
      - match: {check_id: "SP_no_emoji|.*_no_emoji$"}
        verifier: {name: no_emoji, params: {scope: all}}
      - match: {description: "(?i)does not use emoji"}
        verifier: no_emoji

Match keys (all given keys must match):

``check_id``     regular expression, must match the whole check id
``description``  regular expression, searched in the description
``category``     regular expression, must match the instance's whole category
                 (``metadata["category"]``, case-insensitive)
``source``       a source (``SP``, ``AgentsMd`` …) or a list of them
``kind``         a check kind (``compliance``, ``testing`` …) or a list of them

The first matching rule wins; a check that already names a verifier keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from adhere.core import Check, CheckKind, Instance, Source, VerifierRef
from adhere.errors import SpecError
from adhere.judging._verify import get_verifier
from adhere.spec import parse_yaml, read_text, validate_model

__all__ = ["Binding", "Bindings", "load_bindings", "parse_bindings"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regular expression: {exc}") from None
    return value


class _Match(_Strict):
    check_id: str | None = None
    description: str | None = None
    category: str | None = None
    source: list[Source] | None = None
    kind: list[CheckKind] | None = None

    @field_validator("check_id", "description", "category")
    @classmethod
    def _valid(cls, value: str | None) -> str | None:
        return _regex(value)

    @field_validator("source", "kind", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class _Rule(_Strict):
    match: _Match
    verifier: VerifierRef

    @field_validator("verifier", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value


class _File(_Strict):
    bindings: list[_Rule] = Field(min_length=1)


@dataclass(frozen=True)
class Binding:
    """One rule: what it matches and the verifier it binds."""

    verifier: VerifierRef
    check_id: re.Pattern[str] | None = None
    description: re.Pattern[str] | None = None
    category: re.Pattern[str] | None = None
    sources: frozenset[Source] | None = None
    kinds: frozenset[CheckKind] | None = None

    def matches(self, check: Check, category: str | None = None) -> bool:
        """Whether every key of the rule matches ``check`` (of an instance in ``category``)."""
        if self.check_id is not None and not self.check_id.fullmatch(check.id):
            return False
        if self.description is not None and not self.description.search(check.description):
            return False
        if self.category is not None and (
            category is None or not self.category.fullmatch(category)
        ):
            return False
        if self.sources is not None and check.source not in self.sources:
            return False
        return self.kinds is None or check.kind in self.kinds


@dataclass(frozen=True)
class Bindings:
    """Rules binding checks to verifiers, applied in order (first match wins)."""

    rules: tuple[Binding, ...]
    file: str | None = None

    def match(self, check: Check, category: str | None = None) -> VerifierRef | None:
        """The verifier the first matching rule binds to ``check``, if any."""
        return next((r.verifier for r in self.rules if r.matches(check, category)), None)

    def bind(self, checks: Iterable[Check], *, category: str | None = None) -> list[Check]:
        """``checks`` with verifiers bound; a check's own ``verifier`` is never replaced.

        Args:
            checks: The checks of one instance.
            category: The instance's category, for rules that match on it.
        """
        out: list[Check] = []
        for check in checks:
            ref = None if check.verifier is not None else self.match(check, category)
            out.append(check if ref is None else check.model_copy(update={"verifier": ref}))
        return out

    def bind_instance(self, instance: Instance) -> Instance:
        """``instance`` with its checks bound (its ``metadata["category"]`` is used)."""
        category = instance.metadata.get("category")
        checks = self.bind(
            instance.checks, category=category if isinstance(category, str) else None
        )
        return instance.model_copy(update={"checks": checks})


def parse_bindings(data: Any, *, file: str = "<bindings>") -> Bindings:
    """Bindings from decoded YAML data.

    Raises:
        SpecError: Naming the file and field: bad structure, an invalid regular
            expression, an unknown verifier or bad verifier parameters.
    """
    if not isinstance(data, dict):
        raise SpecError("expected a mapping with a 'bindings' list", file=file)
    parsed = validate_model(_File, data, file=file)
    rules: list[Binding] = []
    for n, rule in enumerate(parsed.bindings):
        where = f"bindings[{n}]"
        match = rule.match
        if not match.model_fields_set:
            raise SpecError(
                "give at least one of check_id, description, category, source, kind",
                file=file,
                field=f"{where}.match",
            )
        try:
            registered = get_verifier(rule.verifier.name)
        except SpecError as exc:
            message = str(exc).removeprefix(f"{exc.field}: ")
            raise SpecError(message, file=file, field=f"{where}.verifier.name") from None
        registered.validate(rule.verifier.params, file=file, field=f"{where}.verifier.params")
        rules.append(
            Binding(
                verifier=rule.verifier,
                check_id=re.compile(match.check_id) if match.check_id is not None else None,
                description=(
                    re.compile(match.description) if match.description is not None else None
                ),
                category=(
                    re.compile(match.category, re.IGNORECASE)
                    if match.category is not None
                    else None
                ),
                sources=frozenset(match.source) if match.source is not None else None,
                kinds=frozenset(match.kind) if match.kind is not None else None,
            )
        )
    return Bindings(tuple(rules), file=file)


def load_bindings(path: str | Path) -> Bindings:
    """Load a bindings YAML file.

    Raises:
        SpecError: The file cannot be read, is not UTF-8, is not valid YAML (a key
            given twice included), or does not describe valid bindings (see
            :func:`parse_bindings`).
    """
    path = Path(path)
    return parse_bindings(parse_yaml(read_text(path), file=str(path)), file=str(path))
