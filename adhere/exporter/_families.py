"""Building metric families, and keeping label values bounded.

Label values that grow with the data (models, scaffolds, judges) are bounded per
rollout: the ``n`` values with the most trials (calls, for judges) keep their name and
the rest are merged under :data:`OTHER`. Trial, instance and check ids are never labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

__all__ = ["OTHER", "Families", "bounded", "histogram_buckets"]

OTHER = "other"
"""Label value of the values beyond a bound."""


def bounded(counts: Counter[str], n: int) -> dict[str, str]:
    """Value → label: the ``n`` most frequent keep their name, the rest become ``other``.

    Ties are broken by name, so the choice is stable between scrapes.
    """
    ranked = sorted(counts, key=lambda v: (-counts[v], v))
    return {value: value if i < n else OTHER for i, value in enumerate(ranked)}


def histogram_buckets(
    values: Iterable[float], bounds: Sequence[float]
) -> tuple[list[tuple[str, float]], float]:
    """Cumulative ``(le, count)`` buckets (ending with ``+Inf``) and the sum of ``values``."""
    data = list(values)
    buckets = [(_le(b), float(sum(1 for v in data if v <= b))) for b in bounds]
    buckets.append(("+Inf", float(len(data))))
    return buckets, float(sum(data))


def _le(bound: float) -> str:
    return repr(float(bound))


class Families:
    """Metric families by name, created on first use with their help and label names."""

    def __init__(self) -> None:
        self._families: dict[str, Metric] = {}

    def gauge(self, name: str, doc: str, labels: Sequence[str]) -> GaugeMetricFamily:
        """The gauge family ``name``."""
        family = self._families.get(name)
        if family is None:
            family = self._families[name] = GaugeMetricFamily(name, doc, labels=list(labels))
        assert isinstance(family, GaugeMetricFamily)
        return family

    def counter(self, name: str, doc: str, labels: Sequence[str]) -> CounterMetricFamily:
        """The counter family ``name`` (samples are exposed as ``name_total``)."""
        family = self._families.get(name)
        if family is None:
            family = self._families[name] = CounterMetricFamily(name, doc, labels=list(labels))
        assert isinstance(family, CounterMetricFamily)
        return family

    def histogram(self, name: str, doc: str, labels: Sequence[str]) -> HistogramMetricFamily:
        """The histogram family ``name``."""
        family = self._families.get(name)
        if family is None:
            family = self._families[name] = HistogramMetricFamily(name, doc, labels=list(labels))
        assert isinstance(family, HistogramMetricFamily)
        return family

    def set(self, name: str, doc: str, labels: dict[str, str], value: float | None) -> None:
        """Add a gauge sample (``None``: no sample)."""
        family = self.gauge(name, doc, list(labels))
        if value is not None:
            family.add_metric(list(labels.values()), float(value))

    def count(self, name: str, doc: str, labels: dict[str, str], value: float) -> None:
        """Add a counter sample."""
        self.counter(name, doc, list(labels)).add_metric(list(labels.values()), float(value))

    def observe(
        self,
        name: str,
        doc: str,
        labels: dict[str, str],
        values: Iterable[float],
        bounds: Sequence[float],
    ) -> None:
        """Add a histogram sample built from raw observations."""
        buckets, total = histogram_buckets(values, bounds)
        family = self.histogram(name, doc, list(labels))
        family.add_metric(list(labels.values()), buckets, total)

    def collect(self) -> list[Metric]:
        """Every family, in creation order."""
        return list(self._families.values())
