"""Async clients for model endpoints (OpenAI Chat Completions, Anthropic Messages).

Clients retry transient failures with jittered exponential back-off, keep each
endpoint within its concurrency and rate limits, record every HTTP attempt, and keep
API keys out of logs, errors and records. The scripted policy server, a test double
that stands in for models offline, lives in :mod:`adhere.testing`.
"""

from adhere.models._backoff import backoff_delay, parse_retry_after
from adhere.models._limiter import EndpointLimiter, LimiterRegistry, RateLimiter, shared_limiter
from adhere.models._open import AnthropicClient, OpenAIClient, open_client
from adhere.models._secrets import resolve_api_key
from adhere.models._types import CallRecord, ChatResponse, ModelClient
from adhere.wire import ChatRequest

__all__ = [
    "AnthropicClient",
    "CallRecord",
    "ChatRequest",
    "ChatResponse",
    "EndpointLimiter",
    "LimiterRegistry",
    "ModelClient",
    "OpenAIClient",
    "RateLimiter",
    "backoff_delay",
    "open_client",
    "parse_retry_after",
    "resolve_api_key",
    "shared_limiter",
]
