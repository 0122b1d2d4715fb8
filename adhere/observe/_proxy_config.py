"""Settings of the recording proxy: the upstreams it forwards to and where records go."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import aiohttp

from adhere.artifacts import ProxyCall
from adhere.wire import Api, Controls

__all__ = [
    "CONNECT_TIMEOUT_SECONDS",
    "IDLE_TIMEOUT_SECONDS",
    "NAME_PATTERN",
    "ProxyConfig",
    "RecordSink",
    "TOTAL_TIMEOUT_SECONDS",
    "Upstream",
    "parse_upstream",
]

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""Trial ids and upstream names: letters, digits, ``.``, ``_``, ``-``; not starting with ``.``."""

_VERSION_SUFFIX = re.compile(r"/v1(?:beta|alpha)?$")

CONNECT_TIMEOUT_SECONDS = 30.0
"""Default limit on connecting to an upstream (TCP and TLS)."""
IDLE_TIMEOUT_SECONDS = 900.0
"""Default limit on upstream's silence: waiting for the answer's first bytes (a slow
reasoning model may think for many minutes before its first token, and an unstreamed
answer comes in one piece at the end), or for the next bytes of a stream."""
TOTAL_TIMEOUT_SECONDS = 3 * 3600.0
"""Default limit on one whole call: a safety net, never the limit a live stream meets."""


class RecordSink(Protocol):
    """Where the proxy puts its records: one call to :meth:`record` per model call."""

    def record(self, trial_id: str, record: ProxyCall) -> None:
        """Keep one call's record (already redacted) for a trial."""
        ...


@dataclass(frozen=True)
class Upstream:
    """One API the proxy forwards to.

    Attributes:
        name: The name used in proxy paths (``/t/<trial>/<name>/…``).
        base_url: API root without the API path, e.g. ``https://api.anthropic.com``
            or ``http://127.0.0.1:8123``. Incoming paths already carry the API
            version (``/v1/messages``, ``/v1beta/models/…``), so one trailing
            ``/v1``, ``/v1beta`` or ``/v1alpha`` is dropped, as is a trailing ``/``:
            ``https://api.openai.com/v1`` becomes ``https://api.openai.com``.
        api_key: The real key, sent upstream in the header the call's API shape
            expects (``x-api-key``, ``Authorization: Bearer`` or ``x-goog-api-key``);
            ``None`` sends no key. Never shown in ``repr``, never recorded.
        timeout_seconds: Limit on one whole call, from connecting to the end of the
            response (streams included); generous, as a stream that keeps sending is
            alive however long it takes.
        connect_timeout_seconds: Limit on connecting (TCP and TLS).
        idle_timeout_seconds: Limit on upstream's silence: the wait for the answer's
            first bytes, and between two reads of the body.
        api: The shape the upstream speaks. ``None`` forwards every call as it came
            (the client speaks the upstream's shape); otherwise a call in another
            shape is translated (:mod:`adhere.wire._translate`) and one in this shape
            forwarded as it came.
        controls: What is imposed on every chat call (output cap, temperature,
            reasoning), translated or not.
        model: The model asked of the upstream on translated calls; ``None`` keeps
            the one the client named.
    """

    name: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    timeout_seconds: float = TOTAL_TIMEOUT_SECONDS
    connect_timeout_seconds: float = CONNECT_TIMEOUT_SECONDS
    idle_timeout_seconds: float = IDLE_TIMEOUT_SECONDS
    api: Api | None = None
    controls: Controls = field(default_factory=Controls)
    model: str | None = None

    def __post_init__(self) -> None:
        if not NAME_PATTERN.fullmatch(self.name):
            raise ValueError(
                f"upstream name {self.name!r} must be letters, digits, '.', '_' or '-'"
            )
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"upstream {self.name!r}: base_url must be an http(s) URL")
        for limit in ("timeout_seconds", "connect_timeout_seconds", "idle_timeout_seconds"):
            if getattr(self, limit) <= 0:
                raise ValueError(f"upstream {self.name!r}: {limit} must be positive")
        root = _VERSION_SUFFIX.sub("", self.base_url.rstrip("/"))
        object.__setattr__(self, "base_url", root)

    def client_timeout(self) -> aiohttp.ClientTimeout:
        """The limits of one call to this upstream, as aiohttp takes them."""
        return aiohttp.ClientTimeout(
            total=self.timeout_seconds,
            sock_connect=self.connect_timeout_seconds,
            sock_read=self.idle_timeout_seconds,
        )

    def timeout_error(self, exc: BaseException) -> str:
        """The record's error for a call that met one of the limits (``exc`` says which)."""
        if isinstance(exc, aiohttp.ConnectionTimeoutError):
            return f"upstream timed out after {self.connect_timeout_seconds:g}s connecting"
        if isinstance(exc, aiohttp.SocketTimeoutError):
            return f"upstream timed out after {self.idle_timeout_seconds:g}s without data"
        return f"upstream timed out after {self.timeout_seconds:g}s"


_SHAPES = ("anthropic", "openai-chat", "openai-responses", "gemini")
_EFFORTS = ("none", "minimal", "low", "medium", "high")


def parse_upstream(text: str) -> tuple[Upstream, str | None]:
    """An upstream from ``NAME=URL[,OPTION=VALUE…]`` (``adhere proxy --upstream``).

    Options: ``key-env`` (returned, not read), ``api``, ``model``,
    ``max-output-tokens``, ``temperature``, ``reasoning-effort``, ``thinking-budget``.
    The proxy's time limits are its own options (``--connect-timeout`` …).

    Raises:
        ValueError: The text, an option or a value is malformed (the message says which).
    """
    head, *options = text.split(",")
    name, sep, url = head.partition("=")
    if not sep or not name or not url:
        raise ValueError(f"expected NAME=URL[,OPTION=VALUE…], got {text!r}")
    given: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not value:
            raise ValueError(f"expected OPTION=VALUE after the URL, got {option!r}")
        given[key] = value
    known = {"key-env", "api", "model", "max-output-tokens", "temperature"}
    known |= {"reasoning-effort", "thinking-budget"}
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (known: {', '.join(sorted(known))})")
    api = given.get("api")
    if api is not None and api not in _SHAPES:
        raise ValueError(f"api={api!r}: expected one of {', '.join(_SHAPES)}")
    effort = given.get("reasoning-effort")
    if effort is not None and effort not in _EFFORTS:
        raise ValueError(f"reasoning-effort={effort!r}: expected one of {', '.join(_EFFORTS)}")
    try:
        controls = Controls(
            max_output_tokens=_number(given, "max-output-tokens", int),
            temperature=_number(given, "temperature", float),
            reasoning_effort=effort,  # type: ignore[arg-type]
            thinking_budget=_number(given, "thinking-budget", int),
        )
    except ValueError as exc:
        raise ValueError(f"{exc} in {text!r}") from None
    upstream = Upstream(
        name=name,
        base_url=url,
        api=api,  # type: ignore[arg-type]
        model=given.get("model"),
        controls=controls,
    )
    return upstream, given.get("key-env")


def _number(given: dict[str, str], key: str, kind: Callable[[str], _N]) -> _N | None:
    if key not in given:
        return None
    try:
        return kind(given[key])
    except ValueError:
        raise ValueError(f"{key}={given[key]!r} is not a number") from None


_N = TypeVar("_N", int, float)


@dataclass
class ProxyConfig:
    """Settings of the recording proxy.

    Attributes:
        upstreams: The upstreams by the name used in paths; each key must equal its
            upstream's ``name``.
        sink: Where records go (:class:`MemorySink`, :class:`JsonlDirSink` or any
            :class:`RecordSink`).
        secrets: Extra secret values redacted wherever they appear in records (the
            upstreams' keys and the keys clients send are always redacted). Not
            shown in ``repr``.
        host: Interface to bind; loopback by default.
        port: Port to bind; 0 picks a free one.
        max_connections: Upper bound on open upstream connections (pooled and reused
            across trials); calls beyond it wait for a free connection.
    """

    upstreams: Mapping[str, Upstream]
    sink: RecordSink
    secrets: Sequence[str] = field(default=(), repr=False)
    host: str = "127.0.0.1"
    port: int = 0
    max_connections: int = 512

    def __post_init__(self) -> None:
        for name, upstream in self.upstreams.items():
            if name != upstream.name:
                raise ValueError(f"upstream registered as {name!r} is named {upstream.name!r}")
        if self.max_connections < 1:
            raise ValueError("max_connections must be at least 1")
