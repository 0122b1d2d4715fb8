"""Result stores: an interface, the ``file://`` and ``s3://`` backends, the artifact layout."""

from adhere.store._base import Store, check_store_uri, open_store
from adhere.store._file import FileStore
from adhere.store._s3 import S3Store
from adhere.store._s3_settings import S3Settings

__all__ = [
    "FileStore",
    "S3Settings",
    "S3Store",
    "Store",
    "check_store_uri",
    "open_store",
]
