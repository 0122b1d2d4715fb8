import pytest

from inventory import Item, restock, sell


def test_restock_adds_units():
    assert restock(Item("tea", 1, 2.0), 3).quantity == 4


def test_sell_refuses_overdraw():
    with pytest.raises(ValueError):
        sell(Item("tea", 1, 2.0), 2)
