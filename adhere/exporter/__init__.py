"""Prometheus metrics of rollouts: compliance, progress, usage, judges, regressions.

An edge package (it serves HTTP); ``prometheus_client`` is imported only here.
:class:`StoreCollector` computes every family from a result store on scrape (cached
for a short TTL); :func:`start_metrics_server` serves a registry on ``/metrics`` —
the operator's endpoint and ``adhere exporter``'s. Metric names, labels and their
bounds are listed in ``docs/observability.md``.
"""

from adhere.exporter._activity import TrialCounts
from adhere.exporter._collector import ProgressSource, StoreCollector
from adhere.exporter._server import DEFAULT_PORT, MetricsServer, serve_store, start_metrics_server
from adhere.exporter._settings import ExporterSettings, Price, load_settings

__all__ = [
    "DEFAULT_PORT",
    "ExporterSettings",
    "MetricsServer",
    "Price",
    "ProgressSource",
    "StoreCollector",
    "TrialCounts",
    "load_settings",
    "serve_store",
    "start_metrics_server",
]
