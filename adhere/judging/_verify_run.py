"""Running bound verifiers: one check and one trial in, one Verdict out.

A check whose ``verifier`` is set is decided here; every other check goes to the judge
panel (:func:`needs_judge`). Spec problems — an unknown verifier, bad parameters —
raise :class:`~adhere.errors.SpecError`; call :func:`validate_checks` when a rollout is
planned so they surface before any trial runs. A verifier that raises while deciding
yields an ``error`` verdict carrying the exception, never a pass.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from typing import Any

from adhere.core import Check, Verdict
from adhere.errors import SpecError
from adhere.judging._verify import Outcome, RegisteredVerifier, VerifyContext, get_verifier

__all__ = ["needs_judge", "run_check", "run_checks", "validate_checks"]

_MAX_REASONING = 2000


def needs_judge(check: Check) -> bool:
    """Whether the check has no verifier bound and so goes to the judge panel."""
    return check.verifier is None


def _bound(check: Check, *, file: str | None = None) -> tuple[RegisteredVerifier, dict[str, Any]]:
    """The check's verifier and its validated parameters."""
    if check.verifier is None:
        raise SpecError(
            f"check {check.id!r} has no verifier; it is decided by the judge panel",
            file=file,
            field=f"checks.{check.id}.verifier",
        )
    try:
        registered = get_verifier(check.verifier.name)
    except SpecError as exc:
        message = str(exc).removeprefix(f"{exc.field}: ")
        raise SpecError(
            f"check {check.id!r}: {message}", file=file, field=f"checks.{check.id}.verifier.name"
        ) from None
    params = registered.validate(
        check.verifier.params, file=file, field=f"checks.{check.id}.verifier.params"
    )
    return registered, params


def validate_checks(checks: Iterable[Check], *, file: str | None = None) -> None:
    """Check that every bound verifier exists and accepts its parameters.

    Raises:
        SpecError: For the first bad check, naming the check, the verifier and the
            parameter.
    """
    for check in checks:
        if check.verifier is not None:
            _bound(check, file=file)


def run_check(check: Check, ctx: VerifyContext) -> Verdict:
    """Decide ``check`` with its bound verifier.

    The verdict's ``decided_by`` is ``verifier:<name>`` and its ``details`` hold the
    parameters used. An exception inside the verifier (or a return value that is not an
    :class:`Outcome`) becomes an ``error`` verdict with the exception text.

    Raises:
        SpecError: The check has no verifier, the verifier is unknown, or its
            parameters are invalid.
    """
    registered, params = _bound(check)
    decided_by = f"verifier:{registered.name}"
    shown = _jsonable(params)
    try:
        outcome = registered.func(ctx, **params)
    except Exception as exc:  # a verifier bug or unusable input: never a pass
        where = traceback.extract_tb(exc.__traceback__)[-1:]
        frame = f" ({where[0].name}, line {where[0].lineno})" if where else ""
        return Verdict(
            check_id=check.id,
            result="error",
            decided_by=decided_by,
            reasoning=f"the verifier raised {type(exc).__name__}{frame}: {exc}"[:_MAX_REASONING],
            details={"params": shown},
        )
    if not isinstance(outcome, Outcome):
        return Verdict(
            check_id=check.id,
            result="error",
            decided_by=decided_by,
            reasoning=f"the verifier returned {type(outcome).__name__}, not an Outcome",
            details={"params": shown},
        )
    return Verdict(
        check_id=check.id,
        result=outcome.result,
        decided_by=decided_by,
        reasoning=outcome.reasoning[:_MAX_REASONING],
        evidence=outcome.evidence,
        details={"params": shown, **_jsonable(dict(outcome.details))},
    )


def run_checks(checks: Iterable[Check], ctx: VerifyContext) -> list[Verdict]:
    """Verdicts for every check that has a verifier bound, in order (others skipped)."""
    return [run_check(check, ctx) for check in checks if not needs_judge(check)]


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (models dumped, tuples as lists, others as text)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return [_jsonable(v) for v in sorted(value, key=repr)]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _jsonable(dump(mode="json"))
    return str(value)
