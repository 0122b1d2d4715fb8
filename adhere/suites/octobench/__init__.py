"""OctoBench: scaffold-aware instruction following with checklists (SUITES.md §1)."""

from adhere.suites.octobench._load import RawInstance, category_source, load_octobench, to_instance
from adhere.suites.octobench._suite import OctoBenchSuite

__all__ = [
    "OctoBenchSuite",
    "RawInstance",
    "category_source",
    "load_octobench",
    "to_instance",
]
