"""The store collector: every metric of a store's rollouts, computed on scrape.

A scrape within ``ttl_seconds`` of the last refresh is answered from the cached
families; a later one re-reads the store (only changed files are parsed again, see
:mod:`adhere.exporter._read`) and rebuilds them. Concurrent scrapes share one
refresh. A refresh that fails keeps the previous families and counts the failure in
``adhere_exporter_refresh_errors_total``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector, CollectorRegistry

from adhere.errors import AdhereError
from adhere.exporter._activity import TrialCounts, add_activity, trial_counts
from adhere.exporter._compliance import add_compliance
from adhere.exporter._families import Families, bounded
from adhere.exporter._read import RolloutData, StoreReader
from adhere.exporter._regressions import RegressionCache, add_regressions
from adhere.exporter._settings import ExporterSettings
from adhere.store import Store, open_store

__all__ = ["ProgressSource", "StoreCollector"]

log = logging.getLogger(__name__)

ProgressSource = Callable[[str], TrialCounts | None]
"""Rollout name → its trial counts, when the caller knows them better than the store
(the operator: from the Rollout's status); ``None`` falls back to the store."""


class StoreCollector(Collector):
    """Compliance, progress, usage, judge and regression metrics of a store's rollouts.

    Args:
        store: The store (or its URI) the rollouts were written to.
        settings: Cache, bounds, prices and regression settings.
        registry: Registry to register with (``None``: do not register).
        progress: Optional source of trial counts that overrides the store's.
        clock: Monotonic clock (tests).
    """

    def __init__(
        self,
        store: Store | str,
        settings: ExporterSettings | None = None,
        *,
        registry: CollectorRegistry | None = REGISTRY,
        progress: ProgressSource | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = open_store(store) if isinstance(store, str) else store
        self.settings = settings or ExporterSettings()
        self.progress = progress
        self._clock = clock
        self._reader = StoreReader(self.store)
        self._regressions = RegressionCache()
        self._lock = threading.Lock()
        self._families: list[Metric] = []
        self._refreshed: float | None = None
        self._refreshed_at = 0.0
        self._duration = 0.0
        self._errors = 0
        self._found = 0
        self._exported = 0
        if registry is not None:
            registry.register(self)

    def describe(self) -> list[Metric]:
        """Nothing: the families depend on the store, so registration reads nothing."""
        return []

    def collect(self) -> Iterator[Metric]:
        """The cached families (refreshed when older than the TTL) and the exporter's own."""
        with self._lock:
            now = self._clock()
            if self._refreshed is None or now - self._refreshed >= self.settings.ttl_seconds:
                self.refresh()
                self._refreshed = self._clock()
            families = list(self._families)
        yield from families
        yield from self._own()

    def refresh(self) -> None:
        """Re-read the store and rebuild every family now."""
        started = time.monotonic()
        try:
            self._families = self._build()
        except (AdhereError, OSError, ValueError):
            self._errors += 1
            log.exception(
                "exporter: refreshing %s failed; serving the previous values", self.store.uri
            )
        self._duration = time.monotonic() - started
        self._refreshed_at = time.time()

    def _read(self, names: list[str]) -> dict[str, RolloutData]:
        out = {}
        for name in names:
            try:
                out[name] = self._reader.read(name)
            except (AdhereError, OSError, ValueError) as exc:
                self._errors += 1
                log.warning("exporter: skipping rollout %s: %s", name, exc)
        return out

    def _build(self) -> list[Metric]:
        settings = self.settings
        found = self._reader.rollouts()
        wanted = [n for n in found if settings.rollouts is None or n in settings.rollouts]
        data = self._read(wanted)
        ranked = sorted(data.values(), key=lambda d: (-(d.last_activity or 0.0), d.name))
        kept = ranked[: settings.max_rollouts]
        self._found, self._exported = len(found), len(kept)
        families = Families()
        for rollout in kept:
            self._add_rollout(families, rollout, data, found)
        self._reader.forget_unseen()
        return families.collect()

    def _add_rollout(
        self,
        families: Families,
        rollout: RolloutData,
        data: dict[str, RolloutData],
        found: list[str],
    ) -> None:
        settings = self.settings
        base = {"rollout": rollout.name, "benchmark": rollout.benchmark, "suite": rollout.suite}
        models = bounded(
            Counter(str(t.scored.keys["model"]) for t in rollout.trials)
            + Counter({m: 0 for m in rollout.model_ids}),
            settings.max_models,
        )
        scaffolds = bounded(
            Counter(str(t.scored.keys["scaffold"]) for t in rollout.trials), settings.max_scaffolds
        )
        judge_counts: Counter[str] = Counter(str(r.get("judge", "")) for r in rollout.judge_calls)
        for facts in rollout.trials:
            judge_counts.update({name: 1 for name in facts.judged})
        judges = bounded(
            judge_counts + Counter({j: 0 for j in rollout.judge_ids}), settings.max_judges
        )
        baseline = settings.baselines.get(rollout.name) or rollout.baseline
        families.set(
            "adhere_rollout_info",
            "A rollout the exporter reads: its benchmark, suite and baseline (value 1).",
            {**base, "baseline": baseline or ""},
            1,
        )
        add_compliance(families, rollout, base, models, scaffolds, judges)
        counts = self.progress(rollout.name) if self.progress is not None else None
        counts = counts or trial_counts(rollout)
        add_activity(families, rollout, base, models, judges, settings, counts)
        if not baseline:
            return
        if baseline not in data and baseline in found:
            data.update(self._read([baseline]))
        if baseline not in data:
            log.warning(
                "exporter: baseline %s of %s is not in %s", baseline, rollout.name, self.store.uri
            )
            return
        rows = self._regressions.rows(rollout, data[baseline], settings.regression())
        add_regressions(families, rows, rollout.name, baseline, models)

    def _own(self) -> list[Metric]:
        duration = GaugeMetricFamily(
            "adhere_exporter_refresh_duration_seconds",
            "How long the last refresh of the store took.",
            value=self._duration,
        )
        stamp = GaugeMetricFamily(
            "adhere_exporter_last_refresh_timestamp_seconds",
            "Unix time of the last refresh.",
            value=self._refreshed_at,
        )
        errors = CounterMetricFamily(
            "adhere_exporter_refresh_errors",
            "Refreshes (or rollouts) that could not be read.",
            value=self._errors,
        )
        rollouts = GaugeMetricFamily(
            "adhere_exporter_rollouts",
            "Rollouts found in the store and exported (bounded by max_rollouts).",
            labels=["state"],
        )
        rollouts.add_metric(["found"], self._found)
        rollouts.add_metric(["exported"], self._exported)
        return [duration, stamp, errors, rollouts]
