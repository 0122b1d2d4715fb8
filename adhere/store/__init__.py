"""Result stores: an interface, the ``file://`` backend and the rollout artifact layout."""

from adhere.store._base import Store, open_store
from adhere.store._cache import StoreVerdictCache
from adhere.store._file import FileStore
from adhere.store._layout import RolloutStore, StoredTrial, safe_segment

__all__ = [
    "FileStore",
    "RolloutStore",
    "Store",
    "StoreVerdictCache",
    "StoredTrial",
    "open_store",
    "safe_segment",
]
