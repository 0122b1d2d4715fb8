"""Reading an endpoint's API key from its environment variable, file or Secret variable."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from adhere.errors import SecretError
from adhere.spec import SecretSource

__all__ = ["resolve_api_key"]


def resolve_api_key(
    source: SecretSource | None, env: Mapping[str, str] | None = None
) -> str | None:
    """Read the API key a :class:`SecretSource` points at.

    Surrounding whitespace (a trailing newline in a mounted file) is stripped.

    Args:
        source: Where the key lives; ``None`` means the endpoint needs no key.
        env: Environment to read variables from; defaults to ``os.environ``.

    Returns:
        The key, or ``None`` when ``source`` is ``None``.

    Raises:
        SecretError: The variable is unset or empty, or the file is missing,
            unreadable or empty. The message names the variable or file, never a value.
    """
    if source is None:
        return None
    environ = os.environ if env is None else env
    ref = source.secret_key_ref
    if ref is not None:
        # The operator sets this variable from the Secret in the pods it starts.
        value = environ.get(ref.env_name, "").strip()
        if not value:
            raise SecretError(
                f"API key of Secret {ref.name!r} key {ref.key!r} is read from the environment "
                f"variable {ref.env_name}, which is not set or empty (the operator sets it in "
                "its pods; elsewhere set it yourself)"
            )
        return value
    if source.env is not None:
        if source.env not in environ:
            raise SecretError(f"API key environment variable {source.env} is not set")
        value = environ[source.env].strip()
        if not value:
            raise SecretError(f"API key environment variable {source.env} is empty")
        return value
    assert source.file is not None  # guaranteed by SecretSource's validator
    path = Path(source.file)
    try:
        value = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise SecretError(f"API key file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretError(f"API key file {path} cannot be read: {type(exc).__name__}") from None
    if not value:
        raise SecretError(f"API key file {path} is empty")
    return value
