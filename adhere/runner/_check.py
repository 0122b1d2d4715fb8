"""Every check ``adhere run`` makes before its first trial, shared with ``adhere validate``.

:func:`check_run` is what :func:`~adhere.runner.prepare` starts with, so a spec that
``adhere validate`` accepts does not fail at ``run`` for a spec reason. In order:

1. the Benchmark: its suite exists and accepts the suite options; the suite loads the
   instances (generator parameters, dataset files, bindings files, verifier names
   and parameters); the filters leave at least one instance;
2. the Rollout: every scaffold exists (close names suggested) and accepts its
   options; the store URI is one a store opens;
3. every model and judge endpoint: a ``baseUrl`` that is not a URL names a known
   model provider, which accepts the endpoint (e.g. ``local-model`` does not speak
   ``gemini``; the scripted test double knows the policy its ``model`` string names);
   judges speak ``openai`` or ``anthropic`` (adhere's own clients);
4. secrets: every API key a run would read (env var, file, Secret variable) is there.
   Messages name the variable or file, never a value.

Errors are :class:`~adhere.errors.SpecError` (or :class:`~adhere.errors.SecretError`)
naming the file and the field path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from adhere.core import Instance, Trial
from adhere.errors import SecretError, SpecError
from adhere.models import ServeContext, check_endpoint, provider_for, resolve_api_key
from adhere.runner._pairing import Pairing, pairings
from adhere.runner._plan import apply_filters, plan_trials
from adhere.scaffolds import Scaffold, get_scaffold
from adhere.spec import Benchmark, Endpoint, JudgePanel, Rollout, RunConfig, SecretSource
from adhere.store import check_store_uri
from adhere.suites import Suite, get_suite

__all__ = [
    "Checked",
    "JUDGE_APIS",
    "check_benchmark",
    "check_panel",
    "check_rollout",
    "check_run",
    "resolve_scaffolds",
    "rollout_scaffolds",
    "suite_lookup",
]

JUDGE_APIS = ("openai", "anthropic")
"""The API shapes adhere's own clients (judges, checklist generation) speak."""


@dataclass(frozen=True)
class Checked:
    """A rollout that passed every check: what the run goes on with."""

    suite: Suite
    instances: list[Instance]
    scaffolds: dict[str, Scaffold]
    trials: list[Trial]
    pairings: list[Pairing]


def _located(exc: SpecError, *, file: str, prefix: str = "") -> SpecError:
    """``exc`` with ``file`` set (when it has none) and its field under ``prefix``."""
    if exc.file and not prefix:
        return exc  # already located (its message may spell the field itself)
    field = ".".join(p for p in (prefix, exc.field or "") if p) or None
    return SpecError(exc.message, file=exc.file or file or None, field=field)


def _file(config: RunConfig, kind: str, name: str) -> str:
    return config.files.get(f"{kind}/{name}", "")


def benchmark_suite(benchmark: Benchmark, *, file: str = "") -> Suite:
    """The Benchmark's suite with its options; SpecError naming the file and field."""
    try:
        return get_suite(benchmark.spec.suite, **benchmark.spec.options)
    except SpecError as exc:
        raise _located(exc, file=file) from None


def suite_lookup(config: RunConfig) -> Suite:
    """The run's Benchmark's suite with its options."""
    name = config.benchmark.metadata.name
    return benchmark_suite(config.benchmark, file=_file(config, "Benchmark", name))


def check_benchmark(
    benchmark: Benchmark, *, base_dir: Path, file: str = "", suite: Suite | None = None
) -> tuple[Suite, list[Instance]]:
    """The Benchmark's suite and its instances after filters (what a run would use).

    Raises:
        SpecError: Naming the spec (or data) file and the field: unknown suite, bad
            suite options or generator parameters, a dataset or bindings file that
            does not load, filters that leave nothing.
    """
    suite = suite or benchmark_suite(benchmark, file=file)
    try:
        instances = suite.load(benchmark.spec, base_dir=base_dir, file=file)
    except SpecError as exc:
        raise _located(exc, file=file) from None
    return suite, apply_filters(instances, benchmark.spec.filters, file=file)


def rollout_scaffolds(rollout: Rollout, rollout_file: str = "") -> dict[str, Scaffold]:
    """A Rollout's scaffolds by name; ``SpecError`` naming the file and field otherwise."""
    out: dict[str, Scaffold] = {}
    for n, spec in enumerate(rollout.spec.scaffolds):
        where = f"spec.scaffolds[{n}]"
        try:
            scaffold = get_scaffold(spec.name, **spec.options)
        except SpecError as exc:
            raise _located(exc, file=rollout_file, prefix=where) from None
        out[spec.name] = scaffold
    return out


def resolve_scaffolds(config: RunConfig) -> dict[str, Scaffold]:
    """The rollout's scaffolds by name; ``SpecError`` naming the file and field otherwise."""
    name = config.rollout.metadata.name
    return rollout_scaffolds(config.rollout, _file(config, "Rollout", name))


def _check_secret(
    source: SecretSource | None, *, file: str, field: str, env: Mapping[str, str] | None
) -> None:
    try:
        resolve_api_key(source, env)
    except SecretError as exc:
        where = ": ".join(p for p in (file, field) if p)
        raise SecretError(f"{where}: {exc}") from None


def _check_judges(
    panel: JudgePanel,
    *,
    file: str,
    context: ServeContext,
    secrets: bool,
    env: Mapping[str, str] | None,
) -> None:
    for n, judge in enumerate(panel.spec.judges):
        where = f"spec.judges[{n}].endpoint"
        endpoint = judge.endpoint
        if endpoint.api not in JUDGE_APIS:
            raise SpecError(
                f"a judge needs an {' or '.join(JUDGE_APIS)} endpoint (adhere's own client "
                f"calls it), not {endpoint.api!r}",
                file=file or None,
                field=f"{where}.api",
            )
        try:
            check_endpoint(endpoint, role="judge", context=context)
        except SpecError as exc:
            raise _located(exc, file=file, prefix=where) from None
        if secrets:
            _check_secret(endpoint.api_key, file=file, field=f"{where}.apiKey", env=env)


def check_panel(
    panel: JudgePanel,
    *,
    file: str = "",
    base_dir: Path = Path(),
    secrets: bool = True,
    env: Mapping[str, str] | None = None,
) -> None:
    """Check a JudgePanel's endpoints and keys as a scoring pass would use them.

    Raises:
        SpecError: Naming the file and ``spec.judges[n].endpoint…``.
        SecretError: A judge's key is missing (the variable or file is named).
    """
    judges = [j.endpoint for j in panel.spec.judges]
    context = ServeContext(judges=judges, base_dir=base_dir)
    _check_judges(panel, file=file, context=context, secrets=secrets, env=env)


def _model_needs_key(endpoint: Endpoint) -> bool:
    served_by = provider_for(endpoint)
    return served_by is None or served_by.holds_api_key


def check_rollout(
    config: RunConfig,
    *,
    suite: Suite,
    instances: list[Instance],
    secrets: bool = True,
    env: Mapping[str, str] | None = None,
) -> dict[str, Scaffold]:
    """Check the Rollout's scaffolds, store, endpoints and keys; return the scaffolds."""
    rollout = config.rollout
    rollout_file = _file(config, "Rollout", rollout.metadata.name)
    scaffolds = rollout_scaffolds(rollout, rollout_file)
    try:
        check_store_uri(rollout.spec.storage, base_dir=config.base_dir)
    except SpecError as exc:
        raise SpecError(exc.message, file=rollout_file or None, field="spec.storage") from None
    panel = config.judge_panel
    models = [m.endpoint for m in rollout.spec.models]
    judges = [j.endpoint for j in panel.spec.judges] if panel is not None else []
    suites = {suite.name: suite}
    lookup = cache(get_suite)
    context = ServeContext(
        models=models,
        judges=judges,
        instances=instances,
        suite_for=lambda name: suites.get(name) or lookup(name),
        base_dir=config.base_dir,
    )
    for n, model in enumerate(rollout.spec.models):
        where = f"spec.models[{n}].endpoint"
        try:
            check_endpoint(model.endpoint, role="model", context=context)
        except SpecError as exc:
            raise _located(exc, file=rollout_file, prefix=where) from None
        if secrets and _model_needs_key(model.endpoint):
            key = model.endpoint.api_key
            _check_secret(key, file=rollout_file, field=f"{where}.apiKey", env=env)
    if panel is not None:
        panel_file = _file(config, "JudgePanel", panel.metadata.name)
        _check_judges(panel, file=panel_file, context=context, secrets=secrets, env=env)
    return scaffolds


def check_run(
    config: RunConfig, *, secrets: bool = True, env: Mapping[str, str] | None = None
) -> Checked:
    """Every check a run makes before its first trial (see the module docstring).

    Args:
        config: The Rollout with its Benchmark and JudgePanel.
        secrets: Whether to check that API keys can be read (``adhere validate
            --no-secrets`` skips it, e.g. for a spec meant for a cluster).
        env: Environment the keys are read from; defaults to ``os.environ``.

    Raises:
        SpecError: Naming the file and field of the first problem.
        SecretError: An API key a run would read is missing.
    """
    bench_file = _file(config, "Benchmark", config.benchmark.metadata.name)
    suite, instances = check_benchmark(config.benchmark, base_dir=config.base_dir, file=bench_file)
    scaffolds = check_rollout(config, suite=suite, instances=instances, secrets=secrets, env=env)
    return Checked(
        suite=suite,
        instances=instances,
        scaffolds=scaffolds,
        trials=plan_trials(config.rollout, instances),
        pairings=pairings(config.rollout, scaffolds),
    )
