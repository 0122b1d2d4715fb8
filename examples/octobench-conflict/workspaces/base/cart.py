"""A shopping cart: line items and their total."""


def total(items: list[tuple[str, int, float]]) -> float:
    """Sum of quantity times unit price over the cart's line items."""
    return sum(quantity * price for _, quantity, price in items)
