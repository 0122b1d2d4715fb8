"""One tiny call to each endpoint before a run: reachable, key accepted, model known, shape right.

Each :class:`Probe` is the smallest chat call in the endpoint's API shape
(:func:`adhere.wire.probe_call`: one ``"ping"``, an output cap of one token), sent
once, without retries, with the endpoint's real key in the header its shape expects.
:func:`run_probes` sends them all at once and returns one :class:`ProbeFailure` per
endpoint that failed, saying what failed:

=============================  ==============================================
answer                         failure
=============================  ==============================================
connection refused / no route  ``connection refused`` / ``cannot connect``
no answer in time              ``no answer within N s``
HTTP 401, 403                  ``key rejected``
HTTP 404                       ``model or API path not found``
other 4xx / 5xx                ``request refused`` / ``server error``
2xx that is not a reply        ``bad shape: not a reply in the <shape> shape``
=============================  ==============================================

A 429 passes: the endpoint is there, knows the key and the model, and only asks to
slow down (the run's clients wait and retry as they always do). Keys never appear in
a probe's ``repr`` or in a failure's text (echoes are redacted).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import aiohttp

from adhere.models._session import env_proxy, new_session
from adhere.wire import Api, Plan, error_detail, probe_call, probe_problem, upstream_auth
from adhere.wire.anthropic import AnthropicWire
from adhere.wire.openai_chat import OpenAIWire

__all__ = [
    "PROBE_CONNECT_SECONDS",
    "PROBE_TIMEOUT_SECONDS",
    "Probe",
    "ProbeFailure",
    "judge_probe",
    "model_probe",
    "run_probes",
]

PROBE_TIMEOUT_SECONDS = 60.0
"""How long one probe may take in all (a cold local model answers its first call slowly)."""

PROBE_CONNECT_SECONDS = 5.0
"""How long connecting (TCP and TLS) may take."""

_REDACTED = "[redacted]"


@dataclass(frozen=True)
class Probe:
    """One endpoint's check call.

    Attributes:
        role: ``model`` or ``judge``.
        name: The model's or judge's name in the spec.
        base_url: The endpoint's ``baseUrl`` as the spec gives it (named in messages).
        model: The model id asked for.
        plan: The call in the endpoint's shape (path, body, headers without auth).
        url: Where the call goes.
        key: The API key sent (never shown).
    """

    role: str
    name: str
    base_url: str
    model: str
    plan: Plan
    url: str
    key: str | None = field(default=None, repr=False)

    @property
    def api(self) -> Api:
        """The shape probed."""
        return self.plan.upstream_api


@dataclass(frozen=True)
class ProbeFailure:
    """An endpoint that failed its probe."""

    probe: Probe
    what: str
    """What failed, in a few words (``connection refused``, ``key rejected`` …)."""
    detail: str = ""
    """The endpoint's own words or the transport's error, redacted."""

    def message(self) -> str:
        """One line: role, name, base URL, shape and model, what failed and why."""
        p = self.probe
        where = p.base_url if p.url.startswith(p.base_url) else f"{p.base_url} ({p.url})"
        detail = f" ({self.detail})" if self.detail else ""
        return f"{p.role} {p.name!r} at {where}, {p.api} model {p.model!r}: {self.what}{detail}"


def model_probe(
    name: str, *, base_url: str, root_url: str, api: Api, model: str, key: str | None
) -> Probe:
    """The probe of a scaffold model, sent as the recording proxy sends its calls.

    Args:
        name: The model's name in the Rollout.
        base_url: The spec's ``baseUrl`` (for messages).
        root_url: The API root the proxy forwards to (no ``/v1``); the shape's path
            is appended.
        api: The shape the endpoint speaks.
        model: The model id.
        key: The real key, or ``None``.
    """
    plan = probe_call(api, model)
    return Probe("model", name, base_url, model, plan, root_url.rstrip("/") + plan.path, key)


def judge_probe(
    name: str, *, base_url: str, url_base: str, api: str, model: str, key: str | None
) -> Probe:
    """The probe of a judge, sent where adhere's own client sends its calls.

    Args:
        name: The judge's name in the JudgePanel.
        base_url: The spec's ``baseUrl`` (for messages).
        url_base: The ``baseUrl`` the client uses (a provider's resolved to its URL).
        api: ``openai`` or ``anthropic``.
        model: The model id.
        key: The real key, or ``None``.
    """
    wire = AnthropicWire() if api == "anthropic" else OpenAIWire()
    plan = probe_call("anthropic" if api == "anthropic" else "openai-chat", model)
    return Probe("judge", name, base_url, model, plan, wire.url(url_base), key)


async def run_probes(
    probes: list[Probe],
    *,
    timeout_seconds: float = PROBE_TIMEOUT_SECONDS,
    connect_seconds: float = PROBE_CONNECT_SECONDS,
) -> list[ProbeFailure]:
    """Send every probe at once; the failures, in the order of ``probes``."""
    if not probes:
        return []
    session = new_session(len(probes))
    try:
        found = await asyncio.gather(
            *(_probe(session, p, timeout_seconds, connect_seconds) for p in probes)
        )
    finally:
        await session.close()
    return [f for f in found if f is not None]


async def _probe(
    session: aiohttp.ClientSession, probe: Probe, timeout_seconds: float, connect_seconds: float
) -> ProbeFailure | None:
    headers = {**probe.plan.headers, **upstream_auth(probe.api, probe.key)}
    payload = json.dumps(probe.plan.body, ensure_ascii=False).encode("utf-8")
    proxy, proxy_headers = env_proxy(probe.url)
    timeout = aiohttp.ClientTimeout(total=timeout_seconds, sock_connect=connect_seconds)
    try:
        async with session.post(
            probe.url,
            data=payload,
            headers=headers,
            proxy=proxy,
            proxy_headers=proxy_headers,
            timeout=timeout,
            allow_redirects=False,
        ) as response:
            status = response.status
            content_type = response.headers.get("content-type", "")
            body = await response.read()
    except TimeoutError:
        return ProbeFailure(probe, f"no answer within {timeout_seconds:g} s")
    except aiohttp.ClientConnectorError as exc:
        refused = isinstance(exc.os_error, ConnectionRefusedError)
        what = "connection refused" if refused else "cannot connect"
        return ProbeFailure(probe, what, _redact(str(exc.os_error or exc), probe.key))
    except aiohttp.InvalidURL as exc:
        return ProbeFailure(probe, "invalid URL", _redact(str(exc), probe.key))
    except aiohttp.ClientError as exc:
        return ProbeFailure(
            probe, "connection failed", _redact(f"{type(exc).__name__}: {exc}", probe.key)
        )
    return _judge_answer(probe, status, content_type, body)


def _judge_answer(probe: Probe, status: int, content_type: str, body: bytes) -> ProbeFailure | None:
    if 200 <= status < 300:
        problem = probe_problem(probe.plan, status, content_type, body)
        if problem is None:
            return None
        return ProbeFailure(
            probe, f"bad shape: not a reply in the {probe.api} shape", _redact(problem, probe.key)
        )
    if status == 429:
        return None
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    detail = error_detail(
        document if isinstance(document, dict) else None, body.decode("utf-8", "replace")
    )
    detail = _redact(f"HTTP {status}: {detail}", probe.key)
    if status in (401, 403):
        return ProbeFailure(probe, "key rejected", detail)
    if status == 404:
        return ProbeFailure(probe, "model or API path not found", detail)
    return ProbeFailure(probe, "server error" if status >= 500 else "request refused", detail)


def _redact(text: str, key: str | None) -> str:
    text = " ".join(text.split())
    if key and key in text:
        text = text.replace(key, _REDACTED)
    return text[:300] + ("…" if len(text) > 300 else "")
