"""Batched Ruff: many :class:`~adhere.spec.RuffRun` requests, few Ruff processes.

Requests from every trial being scored are collected for a few milliseconds (or until
``max_batch``) and checked together (:class:`~adhere.scoring._ruff_batcher.RuffBatcher`, the default
executor of :mod:`adhere.scoring._evidence`):

1. **Run groups.** Requests go into groups that one ``ruff check`` can serve: the same
   ``preview`` flag, and settings that agree. Settings of different requests merge
   when no request's rules are affected by a setting it did not ask for — e.g.
   ``max-branches = 2`` (PLR0912) and ``max-statements = 6`` (PLR0915) share a run,
   but ``line-length = 79`` (E501) cannot join a request selecting ``E`` at the default
   length. :data:`SETTING_RULES` says which rules each known setting changes; an
   unknown setting only joins requests with the same value.
2. **One process per group, all at once.** Each distinct code text is written once to
   its own file in a temporary directory of the batch (in memory, ``/dev/shm``, where
   there is one), shared by all groups; then one ``ruff check --isolated`` per group
   starts, all together (each waited on by a thread), over the group's files with the
   union of its selectors, ``--preview`` when it needs it and its settings as
   ``--config`` overrides (through :func:`adhere.judging.verifiers._ruff.check_files`).
3. **Mapping back.** Diagnostics come back by file; each request keeps those of its
   file whose code its own selectors select (``E`` selects ``E501`` but not ``EM101``;
   ``PL`` selects ``PLR…``), plus syntax errors, which fail every request on that
   file (unparsable code fails). No diagnostic: ``pass``; some: ``fail``. Ruff naming
   a file it was not given is an error, never a silent pass. The evidence is
   read-only: the passes of one group share one ``data`` dict.

A group whose Ruff run fails (a bad selector or setting in one request) is retried as
one run per distinct (selectors, settings); requests still failing get ``error``
evidence naming Ruff's message — never a pass.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adhere.core import Evidence, RuffRun
from adhere.judging.verifiers import Diagnostic, RuffOptions, check_files, toml_setting, write_files

__all__ = [
    "SETTING_RULES",
    "GroupChecker",
    "check_requests",
    "check_one_by_one",
    "errors_for",
    "flatten_config",
    "plan_groups",
    "scratch_dir",
    "selector_matches",
]

SETTING_RULES: Mapping[str, tuple[str, ...]] = {
    "line-length": ("E501",),
    "lint.pycodestyle.max-line-length": ("E501",),
    "lint.pycodestyle.max-doc-length": ("W505",),
    "lint.pylint.max-branches": ("PLR0912",),
    "lint.pylint.max-statements": ("PLR0915",),
    "lint.pylint.max-locals": ("PLR0914",),
    "lint.pylint.max-nested-blocks": ("PLR1702",),
    "lint.pylint.max-bool-expr": ("PLR0916",),
    "lint.pylint.max-args": ("PLR0913", "PLR0917"),
    "lint.pylint.max-returns": ("PLR0911",),
    "lint.mccabe.max-complexity": ("C901",),
    "lint.pydocstyle.convention": ("D",),
}
"""Which rules a setting changes (W505 is off unless ``max-doc-length`` is set, so
``line-length`` only changes E501)."""

_CODE = re.compile(r"^([A-Z]+)(\d*)$")
_KEPT = 20
_PYLINT = ("PLC", "PLE", "PLR", "PLW")


@functools.lru_cache(maxsize=4096)
def selector_matches(selector: str, code: str) -> bool:
    """Whether a Ruff selector (``E``, ``PLR09``, ``C90``, ``PL``) selects a rule code.

    Selectors are a linter prefix plus a code prefix: ``E`` selects ``E501`` (not
    ``EM101``), ``C`` selects ``C901`` and ``C401``, ``PL`` selects every pylint rule.
    ``ALL`` selects everything.
    """
    if selector == "ALL":
        return True
    sel, rule = _CODE.match(selector), _CODE.match(code)
    if sel is None or rule is None:
        return selector == code
    alpha, digits = sel.groups()
    if alpha == "PL" and not digits:
        return rule.group(1) in _PYLINT
    return rule.group(1) == alpha and rule.group(2).startswith(digits)


def _overlap(first: Iterable[str], second: Iterable[str]) -> bool:
    seconds = list(second)
    return any(
        selector_matches(a, b) or selector_matches(b, a) or "*" in (a, b)
        for a in first
        for b in seconds
    )


def flatten_config(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"lint": {"pylint": {"max-branches": 2}}}`` → ``{"lint.pylint.max-branches": 2}``."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten_config(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


@dataclass
class _Group:
    preview: bool
    settings: dict[str, Any] = field(default_factory=dict)
    selectors: set[str] = field(default_factory=set)
    members: list[int] = field(default_factory=list)

    def accepts(self, settings: Mapping[str, Any], selectors: Sequence[str]) -> bool:
        for key in set(settings) | set(self.settings):
            mine, theirs = key in self.settings, key in settings
            if mine and theirs:
                if _frozen(self.settings[key]) != _frozen(settings[key]):
                    return False
                continue
            affected = SETTING_RULES.get(key, ("*",))
            others = self.selectors if theirs else selectors
            if _overlap(affected, others):
                return False
        return True


def _signature(request: RuffRun) -> tuple[bool, str, tuple[str, ...]]:
    config = repr(request.config) if request.config else ""  # most have none: skip the repr
    return request.preview, config, tuple(request.select)


def plan_groups(requests: Sequence[RuffRun]) -> list[tuple[bool, dict[str, Any], list[int]]]:
    """Run groups as (preview, settings, request indices), merging compatible settings.

    Requests with the same preview flag, settings and selectors always share a group;
    the merging decision is made once per such kind.
    """
    kinds: dict[tuple[bool, str, tuple[str, ...]], list[int]] = {}
    for index, request in enumerate(requests):
        kinds.setdefault(_signature(request), []).append(index)
    groups: list[_Group] = []
    for (preview, _, select), members in kinds.items():
        settings = flatten_config(requests[members[0]].config)
        group = next(
            (g for g in groups if g.preview == preview and g.accepts(settings, select)), None
        )
        if group is None:
            group = _Group(preview=preview)
            groups.append(group)
        group.settings.update(settings)
        group.selectors.update(select)
        group.members.extend(members)
    return [(g.preview, g.settings, sorted(g.members)) for g in groups]


@functools.lru_cache(maxsize=65536)
def _kept(select: tuple[str, ...], code: str) -> bool:
    """Whether a request selecting ``select`` keeps ``code`` (a syntax error: always)."""
    return code == "syntax-error" or any(selector_matches(s, code) for s in select)


def _evidence(
    request: RuffRun, found: Sequence[Diagnostic], passed: dict[str, Any], fields: set[str]
) -> Evidence:
    """The request's evidence from the diagnostics Ruff reported for its file.

    Built from trusted values without validation, ten thousand per batch, sharing one
    fields set (every field is set, so pydantic's own updates of it change nothing);
    passes share one ``data`` too. A pass is then two objects for the garbage collector
    to track instead of five, and tracking them costs more than building them.
    """
    if found:
        select = tuple(request.select)
        mine = [d for d in found if _kept(select, d.code)]
        if mine:
            first = mine[0]
            return Evidence.model_construct(
                fields,
                id=request.id,
                status="fail",
                detail=f"{len(mine)} Ruff diagnostic(s); first: {first.code} line "
                f"{first.line}: {first.message}",
                data={
                    "diagnostics": [
                        {"code": d.code, "line": d.line, "column": d.column, "message": d.message}
                        for d in mine[:_KEPT]
                    ],
                    "count": len(mine),
                },
            )
    return Evidence.model_construct(
        fields, id=request.id, status="pass", detail="no Ruff diagnostics", data=passed
    )


GroupChecker = Callable[[Path, Sequence[str], RuffOptions], list[Diagnostic]]
"""Runs Ruff over files already written under a root (default: ``check_files``)."""


def scratch_dir() -> str | None:
    """Where batches write their files: ``/dev/shm`` (memory) when usable, else the default.

    Writing thousands of small files costs milliseconds each on some disks and almost
    nothing in memory; ``ADHERE_RUFF_SCRATCH`` overrides the choice.
    """
    chosen = os.environ.get("ADHERE_RUFF_SCRATCH")
    if chosen:
        return chosen
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


@dataclass(frozen=True)
class _Run:
    """One Ruff process: the requests it serves, the files it checks, how it runs."""

    requests: Sequence[RuffRun]
    files: set[str]
    options: RuffOptions


def _prepare(
    requests: Sequence[RuffRun],
    preview: bool,
    settings: Mapping[str, Any],
    timeout: float,
    names: Mapping[str, str],
) -> _Run:
    options = RuffOptions(
        select=tuple(sorted(set().union(*(r.select for r in requests)))),
        preview=preview,
        config=tuple(toml_setting(k, v) for k, v in sorted(settings.items())),
        timeout=timeout,
    )
    return _Run(requests, {names[r.code] for r in requests}, options)


def _run(run: _Run, checker: GroupChecker, root: Path, names: Mapping[str, str]) -> list[Evidence]:
    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in checker(root, sorted(run.files), run.options):
        if diagnostic.path not in run.files:  # it would map back to no request: never drop it
            raise RuntimeError(f"ruff reported a file it was not given: {diagnostic.path!r}")
        by_path.setdefault(diagnostic.path, []).append(diagnostic)
    passed: dict[str, Any] = {"diagnostics": [], "count": 0}  # shared: read-only
    fields = set(Evidence.model_fields)
    return [_evidence(r, by_path.get(names[r.code], ()), passed, fields) for r in run.requests]


def errors_for(requests: Sequence[RuffRun], exc: BaseException) -> list[Evidence]:
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, subprocess.TimeoutExpired):
        reason = f"Ruff timed out after {exc.timeout:.0f}s"
    return [Evidence(id=r.id, status="error", detail=f"ruff: {reason}") for r in requests]


_FAILURES = (RuntimeError, OSError, ValueError, subprocess.TimeoutExpired)


def check_requests(
    requests: Sequence[RuffRun],
    *,
    checker: GroupChecker = check_files,
    timeout: float = 120.0,
    scratch: str | None = None,
) -> list[Evidence]:
    """Check requests with one Ruff process per run group; evidence in request order.

    Each distinct code text is written once (in ``scratch``, default
    :func:`scratch_dir`) and shared by every group that checks it. Then every group's
    Ruff starts at once, each waited on by a thread of its own, the largest first: the
    smaller groups' output is read and their evidence built while the largest runs.
    """
    if not requests:
        return []
    names: dict[str, str] = {}
    for request in requests:
        names.setdefault(request.code, f"r{len(names)}.py")
    groups = sorted(plan_groups(requests), key=lambda group: -len(group[2]))
    out: list[Evidence | None] = [None] * len(requests)
    with (
        tempfile.TemporaryDirectory(prefix="adhere-ruff-", dir=scratch or scratch_dir()) as tmp,
        ThreadPoolExecutor(len(groups), thread_name_prefix="adhere-ruff") as pool,
    ):
        root = Path(tmp).resolve()
        written = write_files(root, {name: code for code, name in names.items()})
        running = []
        for preview, settings, members in groups:  # the largest first
            run = _prepare([requests[i] for i in members], preview, settings, timeout, names)
            running.append((members, pool.submit(_check_group, run, checker, root, names)))
        for members, future in running:
            for index, evidence in zip(members, future.result(), strict=True):
                out[index] = evidence
        _remove(root, written)
    return [e for e in out if e is not None]


def _remove(root: Path, names: Iterable[str]) -> None:
    """Delete the batch's files by name (cheaper than the directory walk of ``rmtree``)."""
    if os.unlink not in os.supports_dir_fd:
        return  # the temporary directory's own cleanup removes them
    directory = os.open(root, os.O_RDONLY)
    try:
        for name in names:
            os.unlink(name, dir_fd=directory)
    finally:
        os.close(directory)


def _check_group(
    run: _Run, checker: GroupChecker, root: Path, names: Mapping[str, str]
) -> list[Evidence]:
    try:
        return _run(run, checker, root, names)
    except _FAILURES:
        return _retry_apart(run, checker, root, names)


def _retry_apart(
    run: _Run, checker: GroupChecker, root: Path, names: Mapping[str, str]
) -> list[Evidence]:
    """One run per distinct (selectors, settings), so one bad request spoils only itself."""
    kinds: dict[tuple[bool, str, tuple[str, ...]], list[int]] = {}
    for index, request in enumerate(run.requests):
        kinds.setdefault(_signature(request), []).append(index)
    out: list[Evidence | None] = [None] * len(run.requests)
    for members in kinds.values():
        mine = [run.requests[i] for i in members]
        first = mine[0]
        settings = flatten_config(first.config)
        try:
            apart = _prepare(mine, first.preview, settings, run.options.timeout, names)
            found = _run(apart, checker, root, names)
        except _FAILURES as exc:
            found = errors_for(mine, exc)
        for index, evidence in zip(members, found, strict=True):
            out[index] = evidence
    return [e for e in out if e is not None]


def check_one_by_one(
    requests: Sequence[RuffRun], *, checker: GroupChecker = check_files, timeout: float = 120.0
) -> list[Evidence]:
    """The naive way, one Ruff process (and one fresh directory) per request: a baseline."""
    out = []
    for request in requests:
        out += check_requests([request], checker=checker, timeout=timeout)
    return out
