"""The project's exception hierarchy.

::

    AdhereError
    ├── SpecError            invalid spec, dataset or configuration (file, field path, expectation)
    │   └── SandboxUnavailable  the agent sandbox is on but cannot be made on this host
    ├── SecretError          a secret could not be resolved (never carries the secret itself)
    ├── ModelCallError       a model call failed after its retries (status, endpoint)
    │   └── ModelReplyError  the endpoint answered with something that is not a valid reply
    ├── PreflightError       endpoints failed the check before a run (one line per endpoint)
    ├── UnknownConversation  the scripted policy server cannot place a request
    ├── ModelServerError     the local model server is not installed, died or never became ready
    ├── StoreError           the result store could not be read or written
    │   └── StoreUnavailable the store did not answer in time (outage, timeout); retry later
    ├── ClusterError         Ray could not be started or reached, or one of its workers died
    └── KubeError            the Kubernetes API refused or failed a request (HTTP status)

Errors are translated once, at the edge that meets the outside world; the rest of the
code raises and catches these.
"""

from __future__ import annotations


class AdhereError(Exception):
    """Base class of every error this project raises on purpose."""


class SpecError(AdhereError):
    """Invalid input: names the file, the field path and what was expected."""

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None):
        self.message = message
        self.file = file
        self.field = field
        where = ": ".join(part for part in (file, field) if part)
        super().__init__(f"{where}: {message}" if where else message)


class SandboxUnavailable(SpecError):
    """The agent sandbox is on, but bubblewrap or socat is missing or cannot work here.

    Its message says how to fix it: install them, or set ``sandbox: off`` in the Rollout.
    """


class SecretError(AdhereError):
    """A secret (API key) could not be resolved from its env var or file."""


class ModelCallError(AdhereError):
    """A model call failed for good (after retries)."""

    def __init__(self, message: str, *, status: int | None = None, endpoint: str = ""):
        self.status = status
        self.endpoint = endpoint
        super().__init__(message)


class ModelReplyError(ModelCallError):
    """The endpoint answered, but not with a reply this client understands."""


class PreflightError(AdhereError):
    """Endpoints failed the one-call check before a run's first trial.

    Attributes:
        failures: One line per failing endpoint: role, name, base URL, model, what failed.
    """

    def __init__(self, failures: list[str]):
        self.failures = list(failures)
        count = len(self.failures)
        lines = "\n".join(f"  {line}" for line in self.failures)
        super().__init__(
            f"{count} endpoint{'' if count == 1 else 's'} failed the check before the run "
            f"(no trial started; --no-preflight skips the check):\n{lines}"
        )


class UnknownConversation(AdhereError):
    """The scripted policy server cannot match a request to a known instance or recording."""


class ModelServerError(AdhereError):
    """The local model server (provider ``local-model``) is missing, died or never got ready."""


class StoreError(AdhereError):
    """The result store could not be read or written."""


class StoreUnavailable(StoreError):
    """The store could not be reached or did not answer within its timeouts and retries.

    Temporary by nature (an outage, a restart, a network partition): the same call may
    succeed later, so callers that can wait (the operator) retry instead of failing.
    """


class ClusterError(AdhereError):
    """Ray could not be started or reached, or an actor of a scoring pass died."""


class KubeError(AdhereError):
    """The Kubernetes API refused or failed a request (``status``: HTTP status, if any)."""

    def __init__(self, message: str, *, status: int | None = None):
        self.status = status
        super().__init__(message)
