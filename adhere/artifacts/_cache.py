"""A verdict cache kept in the store, shared by every rollout under the same root.

Keys are content hashes (see ``adhere.judging.cache_key``): the check, the digest of
what the judge saw, the judge model and the prompt version. Re-scoring an unchanged
rollout therefore finds every verdict here and makes no judge call.
"""

from __future__ import annotations

from adhere.artifacts._layout import VERDICT_CACHE
from adhere.core import Verdict
from adhere.errors import StoreError
from adhere.store import Store


class StoreVerdictCache:
    """``<store>/_cache/verdicts/<key[:2]>/<key>.json``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.hits = 0
        self.misses = 0

    def _key(self, key: str) -> str:
        return f"{VERDICT_CACHE}/{key[:2]}/{key}.json"

    def get(self, key: str) -> Verdict | None:
        """The cached verdict, or None."""
        path = self._key(key)
        if not self.store.exists(path):
            self.misses += 1
            return None
        try:
            verdict = Verdict.model_validate_json(self.store.read_bytes(path))
        except (StoreError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return verdict

    def put(self, key: str, verdict: Verdict) -> None:
        """Cache a verdict."""
        self.store.write_bytes(self._key(key), verdict.model_dump_json().encode("utf-8"))
