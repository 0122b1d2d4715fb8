"""Base class of every spec model: strict, camelCase aliases accepted, unknown fields rejected."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class SpecModel(BaseModel):
    """Strict base for spec models.

    Unknown fields are errors. Fields are written in camelCase in YAML (Kubernetes
    style, ``maxTokens``) and snake_case in Python; both spellings are accepted.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        validate_default=True,
        alias_generator=to_camel,
    )
