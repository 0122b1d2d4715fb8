"""Async clients for model endpoints (OpenAI Chat Completions, Anthropic Messages).

Clients retry transient failures with jittered exponential back-off, keep each
endpoint within its concurrency and rate limits, record every HTTP attempt, and keep
API keys out of logs, errors and records. An endpoint whose ``baseUrl`` is not a URL
names a model provider (:func:`provider_for`), a server the run starts itself; the
scripted policy server, a test double that stands in for models offline, is the
provider ``scripted`` and lives in :mod:`adhere.testing`; a real, tiny model served by
llama.cpp's server on 127.0.0.1 is the provider ``local-model``
(:class:`ModelServer`, installed by ``scripts/install-model-server.sh``).
"""

from adhere.models._backoff import backoff_delay, parse_retry_after
from adhere.models._limiter import EndpointLimiter, LimiterRegistry, RateLimiter, shared_limiter
from adhere.models._model_server import ModelServer, ModelServerSettings
from adhere.models._open import AnthropicClient, OpenAIClient, open_client
from adhere.models._preflight import (
    PROBE_TIMEOUT_SECONDS,
    Probe,
    ProbeFailure,
    judge_probe,
    model_probe,
    run_probes,
)
from adhere.models._providers import (
    PodPlan,
    Provider,
    ProviderService,
    ServeContext,
    Served,
    check_endpoint,
    provider,
    provider_for,
    provider_names,
    serve_providers,
)
from adhere.models._secrets import resolve_api_key
from adhere.models._types import CallRecord, ChatResponse, ModelClient
from adhere.wire import ChatRequest

__all__ = [
    "PROBE_TIMEOUT_SECONDS",
    "AnthropicClient",
    "CallRecord",
    "ChatRequest",
    "ChatResponse",
    "EndpointLimiter",
    "LimiterRegistry",
    "ModelClient",
    "ModelServer",
    "ModelServerSettings",
    "OpenAIClient",
    "PodPlan",
    "Probe",
    "ProbeFailure",
    "Provider",
    "ProviderService",
    "RateLimiter",
    "ServeContext",
    "Served",
    "backoff_delay",
    "check_endpoint",
    "judge_probe",
    "model_probe",
    "open_client",
    "parse_retry_after",
    "provider",
    "provider_for",
    "provider_names",
    "resolve_api_key",
    "run_probes",
    "serve_providers",
    "shared_limiter",
]
