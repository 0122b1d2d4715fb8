"""Settings of the exporter: cache, label bounds, prices, regression tests, buckets.

One model for ``adhere exporter`` and the operator's ``/metrics``. Every field has a
default, so ``ExporterSettings()`` is a working configuration; a YAML or JSON file
with the same (camelCase or snake_case) keys can be validated into it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from adhere.errors import SpecError
from adhere.metrics import Price, RegressionSettings, price_of

__all__ = ["ExporterSettings", "Price", "load_settings"]

DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
TOKEN_BUCKETS = (100, 250, 500, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000)


class _Settings(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )


class ExporterSettings(_Settings):
    """How the exporter reads stores and shapes its metrics."""

    ttl_seconds: float = Field(
        default=10.0,
        ge=0,
        description="A scrape within this many seconds of the last refresh is served from "
        "the cache; a later one re-reads the store (0: every scrape re-reads).",
    )
    rollouts: list[str] | None = Field(
        default=None,
        description="Export only these rollouts of the store (default: every rollout found).",
    )
    max_rollouts: int = Field(
        default=10,
        ge=1,
        description="At most this many rollouts: those with the most recently finished trial.",
    )
    max_models: int = Field(
        default=10,
        ge=1,
        description="Per rollout, the models with the most trials keep their name; the "
        'others are merged under model="other".',
    )
    max_scaffolds: int = Field(
        default=5, ge=1, description="Per rollout, as max_models for scaffolds."
    )
    max_judges: int = Field(
        default=5, ge=1, description="Per rollout, as max_models for judges (named by panel)."
    )
    baselines: dict[str, str] = Field(
        default_factory=dict,
        description="Candidate rollout → baseline rollout; overrides (and adds to) the "
        "Rollout spec's baseline. Both must be in the same store.",
    )
    prices: dict[str, Price] = Field(
        default_factory=dict,
        description="Model → price. Keys are model names or glob patterns, matched against "
        "the rollout's model name, then the endpoint's model id (for judges: the judge "
        "name, then its model id). Models without a price have tokens but no cost.",
    )
    regression_threshold: float = Field(
        default=0.05, ge=0, le=1, description="Smallest drop (a share) flagged as regression."
    )
    regression_alpha: float = Field(
        default=0.05,
        gt=0,
        lt=1,
        description="A drop is flagged only with a corrected (Benjamini–Hochberg) p-value "
        "below this.",
    )
    bootstrap_samples: int = Field(
        default=2000,
        ge=1,
        description="Bootstrap draws of the intervals, and random sign patterns of the "
        "permutation test beyond 12 instances (as `adhere compare --samples`).",
    )
    bootstrap_seed: int = Field(default=0, description="Seed of both (`adhere compare --seed`).")
    duration_buckets: tuple[float, ...] = Field(
        default=DURATION_BUCKETS, description="Upper bounds (seconds) of the latency histograms."
    )
    token_buckets: tuple[float, ...] = Field(
        default=TOKEN_BUCKETS, description="Upper bounds of the judge token histograms."
    )

    @field_validator("duration_buckets", "token_buckets")
    @classmethod
    def _increasing(cls, buckets: tuple[float, ...]) -> tuple[float, ...]:
        if not buckets or any(b >= a for a, b in zip(buckets[1:], buckets, strict=False)):
            raise ValueError("buckets must be a non-empty, strictly increasing list")
        return buckets

    def regression(self) -> RegressionSettings:
        """The regression test settings."""
        return RegressionSettings(
            threshold=self.regression_threshold,
            alpha=self.regression_alpha,
            samples=self.bootstrap_samples,
            seed=self.bootstrap_seed,
        )

    def price_of(self, *names: str | None) -> Price | None:
        """The price of the first name with one: exact keys first, then glob patterns."""
        return price_of(self.prices, *names)


def load_settings(path: str | Path | None, **overrides: Any) -> ExporterSettings:
    """Settings from a YAML/JSON file (optional), with non-``None`` overrides on top."""
    import yaml

    data: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise SpecError(f"cannot read exporter settings: {exc}", file=str(path)) from exc
        if loaded is not None and not isinstance(loaded, dict):
            raise SpecError("exporter settings must be a mapping", file=str(path))
        data = dict(loaded or {})
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return ExporterSettings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise SpecError(
            f"invalid exporter settings: {first['msg']}",
            file=str(path) if path else None,
            field=field,
        ) from exc
