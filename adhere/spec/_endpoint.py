"""Model endpoints: where a model lives and how its API key is found (never the key itself)."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from adhere.core import SpecModel

Effort = Literal["none", "minimal", "low", "medium", "high"]
"""A reasoning effort; ``none`` turns thinking off."""

ApiKind = Literal["openai", "anthropic", "openai-responses", "gemini"]
"""An endpoint's API shape: OpenAI Chat Completions (``openai``), Anthropic Messages,
OpenAI Responses or Gemini ``generateContent``."""

WIRE_SHAPES: dict[str, str] = {
    "openai": "openai-chat",
    "anthropic": "anthropic",
    "openai-responses": "openai-responses",
    "gemini": "gemini",
}
"""Each :data:`ApiKind` as the recording proxy and the scaffolds name the shape."""


_PROVIDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def check_base_url(value: str) -> str:
    """``value`` if it is an http(s) URL with a host, or could name a model provider.

    Whether a provider of that name exists is checked where providers are known
    (``adhere validate`` and ``adhere run`` name the known ones).

    Raises:
        ValueError: Neither.
    """
    expected = (
        "expected an http(s) URL such as https://api.example.com/v1, or the name of a "
        "model provider such as 'scripted' or 'local-model'"
    )
    if "://" not in value:
        if not _PROVIDER_NAME.fullmatch(value):
            raise ValueError(f"{expected}, got {value!r}")
        return value
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError as exc:
        raise ValueError(f"{expected}, got {value!r} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{expected}, got {value!r}")
    if any(c.isspace() for c in value):
        raise ValueError(f"{expected}, got {value!r} (it contains white space)")
    return value


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
    prefix_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Judge calls of one trial in flight at once on this endpoint, once "
        "the first of them was answered (they share the transcript as prompt prefix); "
        "unset means only 'concurrency' limits them. 1 suits servers whose prefix cache "
        "is per slot (llama.cpp's llama-server).",
    )
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


class CallControls(SpecModel):
    """What the recording proxy imposes on every call any scaffold makes to the endpoint.

    Applied in the call's own API shape (and carried across a translation): an agent
    CLI's own output cap is lowered to ``maxOutputTokens``, its temperature and
    reasoning settings replaced. A reasoning effort becomes a thinking budget for
    Anthropic and Gemini (none 0, minimal 1,024, low 2,048, medium 8,192, high 24,576 tokens)
    and a budget the nearest effort for the OpenAI shapes.
    """

    max_output_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Cap on each reply's output tokens (a degenerate model otherwise "
        "streams until the timeout).",
    )
    temperature: float | None = Field(default=None, ge=0, description="Sampling temperature.")
    reasoning_effort: Effort | None = Field(default=None, description="Reasoning effort.")
    thinking_budget: int | None = Field(
        default=None, ge=1, description="Thinking-token budget (Anthropic, Gemini)."
    )


EFFORT_BUDGETS: dict[str, int] = {
    "none": 0,
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 24576,
}
"""Thinking-token budget a reasoning effort stands for in the shapes that take a budget
(Anthropic, Gemini); a budget sent to an OpenAI shape becomes the nearest effort other
than ``none``. ``none`` turns thinking off: no Anthropic ``thinking``, a Gemini budget
of 0, OpenAI's ``none`` effort."""


class Reasoning(SpecModel):
    """How much the model may think before answering: an effort, a token budget, or both.

    Sent by adhere's own clients (judges, checklist generation) and imposed by the
    recording proxy on every call a scaffold makes, in each API shape's own terms:
    OpenAI Chat ``reasoning_effort``, Responses ``reasoning.effort``, Anthropic
    ``thinking: {type: enabled, budget_tokens}``, Gemini
    ``generationConfig.thinkingConfig.thinkingBudget``. A shape that takes a budget
    gets ``budgetTokens``, else the effort's budget (:data:`EFFORT_BUDGETS`); a shape
    that takes an effort gets ``effort``, else the effort nearest ``budgetTokens``.
    """

    effort: Effort | None = Field(
        default=None, description="Reasoning effort (OpenAI shapes' own setting)."
    )
    budget_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Thinking-token budget (Anthropic and Gemini's own setting; for "
        "Anthropic at least 1,024 and below maxTokens).",
    )

    @model_validator(mode="after")
    def _one_at_least(self) -> Reasoning:
        if self.effort is None and self.budget_tokens is None:
            raise ValueError(
                "give 'effort' (none, minimal, low, medium, high), 'budgetTokens', or both"
            )
        return self

    @property
    def budget(self) -> int:
        """The thinking budget in tokens: ``budgetTokens``, else the effort's."""
        if self.budget_tokens is not None:
            return self.budget_tokens
        return EFFORT_BUDGETS[str(self.effort)]


class Endpoint(SpecModel):
    """A model endpoint in one of four API shapes.

    ``base_url`` is the API root without the operation path: for OpenAI-style APIs it
    usually ends in ``/v1`` (the client appends ``/chat/completions``); for Anthropic
    the client appends ``/v1/messages``. The special value ``scripted`` means "the
    scripted policy server this run starts itself" (a test double, see docs).

    Any scaffold runs against any shape: the recording proxy translates a CLI's calls
    into the endpoint's shape (``docs/proxy.md``). adhere's own clients (judges,
    checklist generation) speak ``openai`` and ``anthropic``.
    """

    api: ApiKind = Field(
        default="openai",
        description="API shape of the endpoint: openai (Chat Completions), anthropic, "
        "openai-responses or gemini.",
    )
    base_url: str = Field(description="API root URL, or 'scripted'.")
    model: str = Field(description="Model id sent in each request.")
    api_key: SecretSource | None = Field(
        default=None, description="Where to read the API key; none for open endpoints."
    )
    limits: Limits = Field(default_factory=Limits)
    stream: bool = Field(default=False, description="Use the streaming form of the API.")
    max_tokens: int = Field(
        default=4096,
        ge=1,
        description="Output cap of adhere's own calls (judges, checklist generation, the "
        "chat and reference scaffolds); reasoning tokens count against it.",
    )
    temperature: float | None = Field(default=0.0, ge=0)
    reasoning: Reasoning | None = Field(
        default=None,
        description="Reasoning effort / thinking budget of every call to the endpoint: "
        "adhere's own and, through the recording proxy, every scaffold's.",
    )
    controls: CallControls = Field(
        default_factory=CallControls,
        description="Imposed by the recording proxy on every call any scaffold makes.",
    )

    @model_validator(mode="after")
    def _reasoning_fits(self) -> Endpoint:
        if self.reasoning is None:
            return self
        if self.controls.reasoning_effort is not None or self.controls.thinking_budget is not None:
            raise ValueError(
                "give reasoning once: 'reasoning' (every call) or 'controls.reasoningEffort' / "
                "'controls.thinkingBudget' (scaffolds' calls only), not both"
            )
        if self.reasoning.budget == 0:  # thinking off
            return self
        if self.api == "anthropic" and self.reasoning.budget < 1024:
            raise ValueError(
                f"reasoning.budgetTokens: an anthropic endpoint takes a thinking budget of "
                f"at least 1,024 tokens, got {self.reasoning.budget:,}"
            )
        if self.api == "anthropic" and self.reasoning.budget >= self.max_tokens:
            raise ValueError(
                f"reasoning: the thinking budget ({self.reasoning.budget:,} tokens) must be "
                f"below maxTokens ({self.max_tokens:,}) for an anthropic endpoint (the "
                "budget counts against the output cap); raise maxTokens, e.g. to "
                f"{self.reasoning.budget + 4096}"
            )
        return self

    @property
    def scaffold_controls(self) -> CallControls:
        """What the recording proxy imposes on scaffolds' calls.

        ``controls``, with the endpoint's ``reasoning`` as its reasoning settings when set.
        """
        if self.reasoning is None:
            return self.controls
        return self.controls.model_copy(
            update={
                "reasoning_effort": self.reasoning.effort,
                "thinking_budget": self.reasoning.budget_tokens,
            }
        )

    @field_validator("base_url")
    @classmethod
    def _url_or_provider(cls, value: str) -> str:
        return check_base_url(value)

    @property
    def wire_api(self) -> str:
        """The endpoint's shape as the proxy names it (``openai`` is ``openai-chat``)."""
        return WIRE_SHAPES[self.api]
