"""Scaffolds: how a model is driven through an instance (``chat`` for now)."""

from adhere.scaffolds._registry import Scaffold, get_scaffold, scaffold, scaffold_names

__all__ = ["Scaffold", "get_scaffold", "scaffold", "scaffold_names"]
