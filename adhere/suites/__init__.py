"""Benchmark suites: each turns its data into Instances and Checks and scores them."""

from adhere.suites._registry import (
    EvidenceSuite,
    Suite,
    WrongItem,
    get_suite,
    suite,
    suite_names,
)

__all__ = ["EvidenceSuite", "Suite", "WrongItem", "get_suite", "suite", "suite_names"]
