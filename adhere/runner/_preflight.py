"""The check before a run spends anything: one tiny call to every model and judge endpoint.

``adhere run`` calls :func:`preflight` once the providers the run starts itself
(``scripted``, ``local-model``) are up and before the first trial: every model of the
Rollout and every judge of the panel gets one probe (:mod:`adhere.models._preflight`),
all at once. A model is probed where the recording proxy sends its calls, in the shape
the proxy sends them in; a judge where adhere's own client calls it. When any fails,
the run stops with :class:`~adhere.errors.PreflightError`: one line per failing
endpoint (role, name, base URL, shape, model, what failed), exit status 2, no trial
directory written. ``adhere run --no-preflight`` skips the check.
"""

from __future__ import annotations

from typing import cast

from adhere.errors import PreflightError
from adhere.models import (
    Probe,
    Served,
    judge_probe,
    model_probe,
    provider_for,
    resolve_api_key,
    run_probes,
)
from adhere.runner._pairing import upstream_for
from adhere.spec import Endpoint, RunConfig
from adhere.wire import Api

__all__ = ["endpoint_probes", "preflight"]


def _key(endpoint: Endpoint) -> str | None:
    served_by = provider_for(endpoint)
    if served_by is not None and not served_by.holds_api_key:
        return None
    return resolve_api_key(endpoint.api_key)


def endpoint_probes(config: RunConfig, served: Served) -> list[Probe]:
    """One probe per model of the Rollout and per judge of its panel."""
    probes = []
    for m in config.rollout.spec.models:
        key = _key(m.endpoint)
        upstream = upstream_for(m.name, m.endpoint, served.resolve(m.endpoint).base_url, key)
        api = upstream.api or cast(Api, m.endpoint.wire_api)
        probes.append(
            model_probe(
                m.name,
                base_url=m.endpoint.base_url,
                root_url=upstream.base_url,
                api=api,
                model=m.endpoint.model,
                key=key,
            )
        )
    panel = config.judge_panel
    for judge in panel.spec.judges if panel is not None else []:
        resolved = served.resolve(judge.endpoint, role="judge")
        probes.append(
            judge_probe(
                judge.name,
                base_url=judge.endpoint.base_url,
                url_base=resolved.base_url,
                api=str(judge.endpoint.api),
                model=resolved.model,
                key=_key(judge.endpoint),
            )
        )
    return probes


async def preflight(config: RunConfig, served: Served) -> None:
    """Probe every endpoint of the run.

    Raises:
        PreflightError: One line per endpoint that failed.
    """
    failures = await run_probes(endpoint_probes(config, served))
    if failures:
        raise PreflightError([f.message() for f in failures])
