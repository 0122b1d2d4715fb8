"""Settings of the recording proxy: the upstreams it forwards to and where records go."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from adhere.artifacts import ProxyCall
from adhere.wire import Api, Controls

__all__ = ["NAME_PATTERN", "ProxyConfig", "RecordSink", "Upstream", "parse_upstream"]

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""Trial ids and upstream names: letters, digits, ``.``, ``_``, ``-``; not starting with ``.``."""

_VERSION_SUFFIX = re.compile(r"/v1(?:beta|alpha)?$")


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
            response (streams included).
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
    timeout_seconds: float = 600
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
        if self.timeout_seconds <= 0:
            raise ValueError(f"upstream {self.name!r}: timeout_seconds must be positive")
        root = _VERSION_SUFFIX.sub("", self.base_url.rstrip("/"))
        object.__setattr__(self, "base_url", root)


_SHAPES = ("anthropic", "openai-chat", "openai-responses", "gemini")
_EFFORTS = ("minimal", "low", "medium", "high")


def parse_upstream(text: str) -> tuple[Upstream, str | None]:
    """An upstream from ``NAME=URL[,OPTION=VALUE…]`` (``adhere proxy --upstream``).

    Options: ``key-env`` (returned, not read), ``api``, ``model``, ``timeout``,
    ``max-output-tokens``, ``temperature``, ``reasoning-effort``, ``thinking-budget``.

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
    known = {"key-env", "api", "model", "timeout", "max-output-tokens", "temperature"}
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
        timeout = _number(given, "timeout", float)
    except ValueError as exc:
        raise ValueError(f"{exc} in {text!r}") from None
    upstream = Upstream(
        name=name,
        base_url=url,
        api=api,  # type: ignore[arg-type]
        model=given.get("model"),
        controls=controls,
        timeout_seconds=timeout if timeout is not None else Upstream.timeout_seconds,
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
