"""Run one helm-sdkpy action in a process of its own; print its result as JSON.

Helm's Go runtime reads the environment once, when the library loads, from the
process's initial environment: ``HELM_DRIVER=memory`` (release records kept in
memory, not in the cluster) must be set when the process starts, so the chart tests
run Helm here rather than in pytest's process.

    python _helm_run.py lint CHART
    python _helm_run.py install CHART NAMESPACE RELEASE KUBECONFIG_YAML VALUES_JSON
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import helm_sdkpy


def run(argv: list[str]) -> Any:
    action, chart, *rest = argv
    if action == "lint":
        return asyncio.run(helm_sdkpy.Lint(helm_sdkpy.Configuration()).run(chart))
    namespace, release, kubeconfig, values = rest
    config = helm_sdkpy.Configuration(namespace=namespace, kubeconfig=kubeconfig)
    install = helm_sdkpy.Install(config)
    return asyncio.run(
        install.run(release, chart, values=json.loads(values), wait=False, timeout=60)
    )


if __name__ == "__main__":
    try:
        output = {"result": run(sys.argv[1:])}
    except helm_sdkpy.HelmError as exc:
        output = {"error": type(exc).__name__, "message": str(exc)}
    sys.stdout.write(json.dumps(output))
