"""OctoBench: scaffold-aware instruction following with checklists (SUITES.md §1)."""

from adhere.suites.octobench._load import (
    PAPER_VERSIONS,
    SCAFFOLD_NAMES,
    RawInstance,
    category_source,
    load_octobench,
    scaffold_ref,
    to_instance,
)
from adhere.suites.octobench._suite import OctoBenchSuite

__all__ = [
    "OctoBenchSuite",
    "PAPER_VERSIONS",
    "RawInstance",
    "SCAFFOLD_NAMES",
    "category_source",
    "load_octobench",
    "scaffold_ref",
    "to_instance",
]
