"""OpenAI Chat Completions (``POST /v1/chat/completions``), every side of it.

=====================  ============================================================
module                 what it does, for whom
=====================  ============================================================
``_client``            :class:`OpenAIWire`: a :class:`~adhere.wire.ChatRequest` as
                       a request body, a ``chat.completion`` (whole or from
                       ``chat.completion.chunk`` events) back into a neutral reply;
                       the model clients use it
``_server``            :class:`OpenAICodec`: a request body into neutral messages, a
                       reply out as a ``chat.completion`` or its chunks; the scripted
                       policy server (a test double) uses it
``_reassemble``        :class:`ChatReassembler`: a recorded stream back into the
                       ``chat.completion`` it amounted to, leniently; the recorder
``_decode``            a recorded call into the neutral messages the model saw and
                       the reply, leniently; the normalizer (through
                       :func:`~adhere.wire.decode_call`)
``_shared``            what both OpenAI APIs share: content parts, the error document
=====================  ============================================================
"""

from adhere.wire.openai_chat._client import OpenAIWire
from adhere.wire.openai_chat._reassemble import ChatReassembler
from adhere.wire.openai_chat._server import OpenAICodec

__all__ = [
    "ChatReassembler",
    "OpenAICodec",
    "OpenAIWire",
]
