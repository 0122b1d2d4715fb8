"""The operator's one Kubernetes client: plain JSON in and out, errors translated once.

Built on the ``kubernetes`` package's ``ApiClient`` (authentication, TLS, kubeconfig
and in-cluster configuration) but without its typed models: objects stay dicts, so
what the reconcile functions build is exactly what is sent. Calls are blocking;
handlers run them in a thread.

Label selectors are also applied here, client-side, so a server that ignores them
(an emulator) gives the same answers.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Mapping
from typing import Any

from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import HTTPError

from adhere.errors import KubeError

log = logging.getLogger(__name__)

_TIMEOUT = (5.0, 30.0)


def _path(group: str, version: str, plural: str, namespace: str | None, name: str | None) -> str:
    root = f"/api/{version}" if group == "" else f"/apis/{group}/{version}"
    ns = f"/namespaces/{namespace}" if namespace else ""
    return f"{root}{ns}/{plural}" + (f"/{name}" if name else "")


def _selector(labels: Mapping[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def matches(obj: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether an object carries every one of ``labels``."""
    have = (obj.get("metadata") or {}).get("labels") or {}
    return all(have.get(k) == v for k, v in labels.items())


class Kube:
    """A small JSON client of the Kubernetes API.

    Args:
        api: A configured ``kubernetes.client.ApiClient``.
    """

    def __init__(self, api: k8s_client.ApiClient) -> None:
        self.api = api

    @classmethod
    def from_environment(cls) -> Kube:
        """In a pod: its service account; elsewhere: ``$KUBECONFIG`` or ``~/.kube/config``."""
        configuration = k8s_client.Configuration()
        if os.environ.get("KUBERNETES_SERVICE_HOST"):
            k8s_config.load_incluster_config(  # type: ignore[no-untyped-call]
                client_configuration=configuration
            )
            return cls(k8s_client.ApiClient(configuration))
        api = k8s_config.new_client_from_config(  # type: ignore[no-untyped-call]
            config_file=os.environ.get("KUBECONFIG")
        )
        return cls(api)

    def close(self) -> None:
        """Release the connection pool."""
        self.api.close()  # type: ignore[no-untyped-call]

    def _call(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: Any = None,
        content_type: str = "application/json",
    ) -> Any:
        headers = {"Accept": "application/json", "Content-Type": content_type}
        try:
            request = self.api.param_serialize(
                method=method,
                resource_path=path,
                query_params=query or [],
                header_params=headers,
                body=body,
                auth_settings=["BearerToken"],
            )
            response = self.api.call_api(*request, _request_timeout=_TIMEOUT)
            data = response.read()  # type: ignore[no-untyped-call]
        except ApiException as exc:
            raise KubeError(
                f"{method} {path}: {exc.status} {exc.reason}", status=exc.status
            ) from None
        except (HTTPError, OSError) as exc:
            raise KubeError(f"{method} {path}: {type(exc).__name__}: {exc}") from None
        if not 200 <= response.status <= 299:
            raise KubeError(f"{method} {path}: HTTP {response.status}", status=response.status)
        return json.loads(data) if data else None

    def get(
        self, group: str, version: str, plural: str, namespace: str | None, name: str
    ) -> dict[str, Any] | None:
        """One object, or None when it does not exist."""
        try:
            found: dict[str, Any] = self._call(
                "GET", _path(group, version, plural, namespace, name)
            )
        except KubeError as exc:
            if exc.status == 404:
                return None
            raise
        return found

    def list(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None,
        labels: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Objects of a kind in a namespace (all namespaces for None) carrying ``labels``."""
        query = [("labelSelector", _selector(labels))] if labels else None
        answer = self._call("GET", _path(group, version, plural, namespace, None), query=query)
        items = (answer or {}).get("items") or []
        return [i for i in items if isinstance(i, dict) and matches(i, labels or {})]

    def create(self, body: Mapping[str, Any], plural: str) -> bool:
        """Create an object; False when one of that name exists already (409)."""
        group, _, version = str(body["apiVersion"]).rpartition("/")
        namespace = (body.get("metadata") or {}).get("namespace")
        try:
            self._call("POST", _path(group, version, plural, namespace, None), body=dict(body))
        except KubeError as exc:
            if exc.status == 409:
                return False
            raise
        return True

    def delete(
        self, group: str, version: str, plural: str, namespace: str | None, name: str
    ) -> bool:
        """Delete an object and its dependents in the background; False when already gone."""
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background"}
        try:
            self._call("DELETE", _path(group, version, plural, namespace, name), body=body)
        except KubeError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def patch_status(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None,
        name: str,
        status: Mapping[str, Any],
    ) -> None:
        """Merge ``status`` into the object's status subresource."""
        self._call(
            "PATCH",
            _path(group, version, plural, namespace, name) + "/status",
            body={"status": dict(status)},
            content_type="application/merge-patch+json",
        )

    def serves(self, group: str, version: str, plural: str) -> bool:
        """Whether the API serves a resource (e.g. KubeRay's ``ray.io/v1`` ``rayjobs``)."""
        try:
            answer = self._call("GET", f"/apis/{group}/{version}")
        except KubeError as exc:
            if exc.status in (404, 503):
                return False
            raise
        return any(r.get("name") == plural for r in (answer or {}).get("resources") or [])

    def secret_data(self, namespace: str, name: str) -> dict[str, Any] | None:
        """A Secret's ``data`` (base64 values), or None when it does not exist."""
        secret = self.get("", "v1", "secrets", namespace, name)
        if secret is None:
            return None
        data = dict(secret.get("data") or {})
        for key, value in (secret.get("stringData") or {}).items():  # as written, unencoded
            data[key] = base64.b64encode(str(value).encode("utf-8")).decode("ascii")
        return data
