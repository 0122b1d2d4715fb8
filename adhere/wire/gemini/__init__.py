"""Gemini generateContent."""

from adhere.wire.gemini._reassemble import GeminiReassembler
from adhere.wire.gemini._server import GeminiCodec

__all__ = [
    "GeminiCodec",
    "GeminiReassembler",
]
