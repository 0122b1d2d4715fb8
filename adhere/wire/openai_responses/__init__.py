"""OpenAI Responses."""

from adhere.wire.openai_responses._server import ResponsesCodec

__all__ = [
    "ResponsesCodec",
]
