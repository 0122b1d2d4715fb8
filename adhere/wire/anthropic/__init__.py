"""Anthropic Messages (``POST /v1/messages``), every side of it.

=====================  ============================================================
module                 what it does, for whom
=====================  ============================================================
``_client``            :class:`AnthropicWire`: a :class:`~adhere.wire.ChatRequest`
                       as a request body, a ``message`` (whole or streamed) back into
                       a neutral reply; the model clients use it.
                       :func:`encode_anthropic_messages`: neutral messages as
                       Messages turns (also the mini-vela importer)
``_server``            :class:`AnthropicCodec`: a request body into neutral
                       messages, a reply out as a ``message`` or its stream events;
                       the scripted policy server (a test double) uses it
``_reassemble``        :class:`AnthropicReassembler`: a recorded stream back into
                       the ``message`` it amounted to, leniently; the recorder
``_decode``            a recorded call into the neutral messages the model saw and
                       the reply, leniently; the normalizer (through
                       :func:`~adhere.wire.decode_call`)
``_blocks``            content blocks in neutral terms, shared by client and server
=====================  ============================================================
"""

from adhere.wire.anthropic._client import AnthropicWire, encode_anthropic_messages
from adhere.wire.anthropic._reassemble import AnthropicReassembler
from adhere.wire.anthropic._server import AnthropicCodec

__all__ = [
    "AnthropicCodec",
    "AnthropicReassembler",
    "AnthropicWire",
    "encode_anthropic_messages",
]
