"""Stock keeping for a small shop."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    quantity: int
    unit_price: float


def restock(item: Item, amount: int) -> Item:
    """Add ``amount`` units to ``item`` and return it."""
    item.quantity += amount
    return item


def sell(item: Item, amount: int) -> Item:
    """Remove ``amount`` units; refuse to go below zero."""
    if amount > item.quantity:
        raise ValueError(f"only {item.quantity} {item.name} left")
    item.quantity -= amount
    return item
