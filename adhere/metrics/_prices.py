"""What tokens cost: a price table of models, shared by ``adhere plan``, reports and the exporter.

A price table maps model names or glob patterns to a :class:`Price` in US dollars per
million input and output tokens. A model is looked up by its name in the Rollout
first, then by its endpoint's model id (:func:`price_of`): exact keys before
patterns. A model no key matches has no price; its cost is unknown, never 0.

adhere ships no prices (they change, and differ between providers of one model); the
table is yours, written as YAML (``docs/prices.md``):

.. code-block:: yaml

    prices:
      small-model: {inputPerMillion: 0.15, outputPerMillion: 0.6}
      "team-*": {inputPerMillion: 3, outputPerMillion: 15}

Pure: no I/O.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = ["Price", "price_of"]


class Price(BaseModel):
    """What a model's tokens cost, in US dollars per million tokens."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )

    input_per_million: float = Field(ge=0, description="USD per million input tokens.")
    output_per_million: float = Field(ge=0, description="USD per million output tokens.")

    def cost(self, input_tokens: float, output_tokens: float) -> float:
        """USD for these token counts."""
        return (
            input_tokens * self.input_per_million + output_tokens * self.output_per_million
        ) / 1_000_000


def price_of(prices: Mapping[str, Price], *names: str | None) -> Price | None:
    """The price of the first name with one: exact keys first, then glob patterns."""
    given = [n for n in names if n]
    for name in given:
        if name in prices:
            return prices[name]
    for name in given:
        for pattern, price in prices.items():
            if fnmatch.fnmatchcase(name, pattern):
                return price
    return None
