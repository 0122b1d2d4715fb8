"""OpenAI Chat Completions."""

from adhere.wire.openai_chat._client import OpenAIWire
from adhere.wire.openai_chat._server import OpenAICodec

__all__ = [
    "OpenAICodec",
    "OpenAIWire",
]
