"""Model endpoints: where a model lives and how its API key is found (never the key itself)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from adhere.core import SpecModel

ApiKind = Literal["openai", "anthropic"]


class SecretKeyRef(SpecModel):
    """A key of a Kubernetes Secret in the resource's namespace (as in a pod's env)."""

    name: str = Field(description="Name of the Secret.")
    key: str = Field(description="Key within the Secret's data.")

    @property
    def env_name(self) -> str:
        """The environment variable this key is read from at run time.

        ``ADHERE_SECRET_<NAME>_<KEY>``, upper-cased, other characters as ``_``: the
        operator sets it in the pods it starts (``valueFrom.secretKeyRef``); outside
        the cluster, set it yourself.
        """
        raw = f"ADHERE_SECRET_{self.name}_{self.key}".upper()
        return re.sub(r"[^A-Z0-9_]", "_", raw)


class SecretSource(SpecModel):
    """Where an API key is read from at run time: an env var, a file or a Kubernetes Secret.

    ``secretKeyRef`` names a key of a Kubernetes Secret: the operator passes it to the
    pods that need it (``valueFrom.secretKeyRef``) and checks that it exists; at run
    time it is read from the environment variable :attr:`SecretKeyRef.env_name`. The
    key itself never appears in a spec.
    """

    env: str | None = Field(default=None, description="Name of the environment variable.")
    file: str | None = Field(default=None, description="Path of a file holding the key.")
    secret_key_ref: SecretKeyRef | None = Field(
        default=None,
        description="A key of a Kubernetes Secret in the resource's namespace.",
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> SecretSource:
        given = [f for f in (self.env, self.file, self.secret_key_ref) if f is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of 'env', 'file' or 'secretKeyRef'")
        return self


class Limits(SpecModel):
    """Per-endpoint client limits."""

    concurrency: int = Field(default=8, ge=1, description="Calls in flight at once.")
    requests_per_second: float | None = Field(
        default=None, gt=0, description="Sustained request rate; unset means unlimited."
    )
    max_retries: int = Field(
        default=5, ge=0, description="Retries on 429, 5xx, timeouts and connection errors."
    )
    timeout_seconds: float = Field(default=120.0, gt=0, description="Per-attempt timeout.")
    backoff_base_seconds: float = Field(
        default=0.5, ge=0, description="First retry delay before jitter; doubles per attempt."
    )
    backoff_max_seconds: float = Field(default=30.0, ge=0, description="Cap of one retry delay.")


class Endpoint(SpecModel):
    """An OpenAI- or Anthropic-compatible model endpoint.

    ``base_url`` is the API root without the operation path: for OpenAI-style APIs it
    usually ends in ``/v1`` (the client appends ``/chat/completions``); for Anthropic
    the client appends ``/v1/messages``. The special value ``scripted`` means "the
    scripted policy server this run starts itself" (a test double, see docs).
    """

    api: ApiKind = Field(default="openai", description="Wire protocol of the endpoint.")
    base_url: str = Field(description="API root URL, or 'scripted'.")
    model: str = Field(description="Model id sent in each request.")
    api_key: SecretSource | None = Field(
        default=None, description="Where to read the API key; none for open endpoints."
    )
    limits: Limits = Field(default_factory=Limits)
    stream: bool = Field(default=False, description="Use the streaming form of the API.")
    max_tokens: int = Field(default=4096, ge=1)
    temperature: float | None = Field(default=0.0, ge=0)
