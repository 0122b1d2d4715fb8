"""Gemini ``generateContent`` and ``streamGenerateContent``, every side of it.

The model and whether to stream travel in the URL
(``/v1beta/models/{model}:streamGenerateContent?alt=sse``), not in the body. There is
no model client for this API; the shape is spoken by the test double and read by the
recorder and the normalizer.

=====================  ============================================================
module                 what it does, for whom
=====================  ============================================================
``_server``            :class:`GeminiCodec`: a request body into neutral messages
                       (pairing function responses with their calls), a reply out as
                       a ``GenerateContentResponse``, its SSE chunks or a JSON array
                       of chunks; the scripted policy server (a test double) uses it
``_reassemble``        :class:`GeminiReassembler`: recorded chunks (SSE or a JSON
                       array) back into one ``GenerateContentResponse``, leniently;
                       the recorder
``_decode``            a recorded call into the neutral messages the model saw and
                       the reply, leniently; the normalizer (through
                       :func:`~adhere.wire.decode_call`)
=====================  ============================================================
"""

from adhere.wire.gemini._reassemble import GeminiReassembler
from adhere.wire.gemini._server import GeminiCodec

__all__ = [
    "GeminiCodec",
    "GeminiReassembler",
]
