"""Anthropic Messages."""

from adhere.wire.anthropic._client import AnthropicWire
from adhere.wire.anthropic._server import AnthropicCodec

__all__ = [
    "AnthropicCodec",
    "AnthropicWire",
]
