"""The verifier registry: ``@verifier("name")``, lookup by name, and what a verifier sees.

A verifier decides one checklist item without a model. It is a plain function
``(ctx, **params) -> Outcome``: ``ctx`` is the trial (instance, trajectory, workspace
before and after) and ``params`` are the check's parameters, validated first against
the verifier's parameter model (unknown parameters are errors).

Built-in verifiers are listed here by name with the module that registers each; the
module is imported on first lookup, so importing the registry stays cheap. Third
parties add verifiers through the ``adhere.verifiers`` entry-point group: an entry
point names a function decorated with :func:`verifier` (or a plain function, which is
then registered under the entry point's name without a parameter model).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from adhere._registry import Registry
from adhere.core import Instance, Trajectory
from adhere.errors import SpecError
from adhere.spec import format_location

__all__ = [
    "ENTRY_POINT_GROUP",
    "Outcome",
    "OutcomeResult",
    "RegisteredVerifier",
    "Verifier",
    "VerifierParams",
    "VerifyContext",
    "get_verifier",
    "verifier",
    "verifier_names",
]

ENTRY_POINT_GROUP = "adhere.verifiers"
"""Entry-point group through which other packages add verifiers."""

_PACKAGE = "adhere.judging.verifiers"
_BUILTIN: Mapping[str, str] = {
    "no_emoji": f"{_PACKAGE}._emoji",
    "uses_emoji": f"{_PACKAGE}._emoji",
    "reply_matches": f"{_PACKAGE}._matches",
    "reply_language": f"{_PACKAGE}._language",
    "length_limit": f"{_PACKAGE}._length",
    "command_executed": f"{_PACKAGE}._commands",
    "tests_run": f"{_PACKAGE}._commands",
    "tool_order": f"{_PACKAGE}._order",
    "read_before_edit": f"{_PACKAGE}._order",
    "tool_args_valid": f"{_PACKAGE}._schema",
    "no_invented_results": f"{_PACKAGE}._schema",
    "file_rules": f"{_PACKAGE}._files",
    "memory_updated": f"{_PACKAGE}._files",
    "code_rules": f"{_PACKAGE}._code",
    "skill_invoked": f"{_PACKAGE}._skills",
}
"""Built-in verifiers by name, with the module that registers each."""

OutcomeResult = Literal["pass", "fail", "n/a"]
_RESULTS = ("pass", "fail", "n/a")


@dataclass(frozen=True)
class VerifyContext:
    """Everything a verifier may look at for one trial.

    Attributes:
        instance: The instance (its metadata holds ``category``, ``expected_skill`` …).
        trajectory: The normalized trajectory, with instruction-source tags.
        initial_files: The workspace before the trial (relative path → text).
        final_files: The workspace after it: ``initial_files`` overlaid with
            ``trajectory.files``, minus the files the trial deleted.
    """

    instance: Instance
    trajectory: Trajectory
    initial_files: Mapping[str, str]
    final_files: Mapping[str, str]

    @classmethod
    def build(
        cls,
        instance: Instance,
        trajectory: Trajectory,
        initial_files: Mapping[str, str] | None = None,
    ) -> VerifyContext:
        """The context of a trial; the workspace defaults to the instance's files.

        ``final_files`` is computed: the initial files, overlaid with the files the
        trial created or changed (``trajectory.files``), minus those listed in
        ``trajectory.meta["deleted_files"]``.
        """
        initial = dict(instance.workspace.files if initial_files is None else initial_files)
        final = {**initial, **trajectory.files}
        deleted = trajectory.meta.get("deleted_files") or []
        for path in deleted if isinstance(deleted, list) else []:
            final.pop(str(path), None)
        return cls(
            instance=instance, trajectory=trajectory, initial_files=initial, final_files=final
        )


@dataclass(frozen=True)
class Outcome:
    """What a verifier decided.

    Attributes:
        result: ``pass``, ``fail`` or ``n/a`` (the instruction did not arise).
        reasoning: Short and specific: what was found, and where.
        evidence: Index in ``trajectory.messages`` of the message relied on.
        details: Extra data kept with the verdict (e.g. every violation found).
    """

    result: OutcomeResult
    reasoning: str
    evidence: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.result not in _RESULTS:
            raise ValueError(f"outcome result must be one of {_RESULTS}, got {self.result!r}")


class Verifier(Protocol):
    """A deterministic check: decides one checklist item from a trial."""

    def __call__(self, ctx: VerifyContext, **params: Any) -> Outcome:
        """Decide the item; raise only when it cannot be decided (an ``error`` verdict)."""
        ...


class VerifierParams(BaseModel):
    """Base of verifier parameter models: frozen, unknown parameters rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class RegisteredVerifier:
    """A verifier as registered: its name, function and parameter model."""

    name: str
    func: Callable[..., Outcome]
    params: type[BaseModel] | None = None

    @property
    def summary(self) -> str:
        """First line of the verifier's docstring."""
        doc = inspect.getdoc(self.func) or ""
        return doc.splitlines()[0] if doc else ""

    def validate(
        self, params: Mapping[str, Any], *, file: str | None = None, field: str = "verifier.params"
    ) -> dict[str, Any]:
        """The parameters, validated and with defaults filled in.

        Raises:
            SpecError: Naming the verifier, the bad parameter and what was expected.
        """
        if self.params is None:
            return self._validate_by_signature(params, file=file, field=field)
        known = set(self.params.model_fields)
        known |= {info.alias for info in self.params.model_fields.values() if info.alias}
        for key in params:
            if key not in known:
                raise SpecError(
                    f"verifier {self.name!r} has no parameter {key!r}; "
                    f"known parameters: {', '.join(sorted(known)) or 'none'}",
                    file=file,
                    field=f"{field}.{key}",
                )
        try:
            model = self.params.model_validate(dict(params))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = format_location(tuple(err["loc"]))
            raise SpecError(
                f"verifier {self.name!r}: bad parameter {where or '(parameters)'}: {err['msg']}",
                file=file,
                field=f"{field}.{where}" if where else field,
            ) from None
        return dict(model)

    def _validate_by_signature(
        self, params: Mapping[str, Any], *, file: str | None, field: str
    ) -> dict[str, Any]:
        signature = inspect.signature(self.func)
        accepts_any = any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()
        )
        names = list(signature.parameters)[1:]
        for key in params:
            if not accepts_any and key not in names:
                raise SpecError(
                    f"verifier {self.name!r} has no parameter {key!r}; "
                    f"known parameters: {', '.join(names) or 'none'}",
                    file=file,
                    field=f"{field}.{key}",
                )
        return dict(params)

    def __call__(self, ctx: VerifyContext, **params: Any) -> Outcome:
        """Validate ``params`` and run the verifier."""
        return self.func(ctx, **self.validate(params))


F = TypeVar("F", bound=Callable[..., Outcome])


def _from_entry_point(name: str, loaded: object) -> RegisteredVerifier | None:
    """An entry point's verifier: registered as is, or a plain function under its name.

    A function some ``@verifier`` registered under another name keeps its parameter
    model; anything not callable is not a verifier (the name stays unknown).
    """
    if isinstance(loaded, RegisteredVerifier):
        return loaded
    if not callable(loaded):
        return None
    known = _REGISTRY.registered().values()
    model = next((r.params for r in known if r.func is loaded), None)
    return RegisteredVerifier(name=name, func=loaded, params=model)


_REGISTRY: Registry[RegisteredVerifier] = Registry(
    "verifiers", "verifier", field="verifier.name", builtin=_BUILTIN, adapt=_from_entry_point
)


def verifier(name: str, *, params: type[BaseModel] | None = None) -> Callable[[F], F]:
    """Decorator registering a verifier function under ``name``.

    Args:
        name: The name checks refer to (``verifier: {name: …}``).
        params: The parameter model; parameters are validated against it (unknown
            ones rejected) and passed to the function as keyword arguments. Without
            a model the function's own keyword parameters are the accepted names.
    """
    if not name or not name.strip():
        raise ValueError("a verifier needs a non-empty name")

    def register(func: F) -> F:
        entry = RegisteredVerifier(name=name, func=func, params=params)
        _REGISTRY.register(name, entry, replace=True)
        return func

    return register


def verifier_names() -> list[str]:
    """Every known verifier name: built-ins, registered functions and entry points."""
    return _REGISTRY.names()


def get_verifier(name: str) -> RegisteredVerifier:
    """The verifier registered under ``name``.

    Raises:
        SpecError: The name is unknown; the message lists the known names.
    """
    return _REGISTRY.get(name)
