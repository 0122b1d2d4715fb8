"""OpenAI Responses (``POST /v1/responses``, as Codex CLI uses it), every side of it.

There is no model client for this API; the shape is spoken by the test double and
read by the recorder and the normalizer.

=====================  ============================================================
module                 what it does, for whom
=====================  ============================================================
``_server``            :class:`ResponsesCodec`: a request body (instructions, input
                       items, tools) into neutral messages, a reply out as a
                       ``response`` or its ``response.*`` events; the scripted policy
                       server (a test double) uses it
``_reassemble``        :class:`ResponsesReassembler`: a recorded stream back into the
                       ``response`` it amounted to, leniently; the recorder
``_decode``            a recorded call into the neutral messages the model saw and
                       the reply, leniently; the normalizer (through
                       :func:`~adhere.wire.decode_call`)
=====================  ============================================================
"""

from adhere.wire.openai_responses._reassemble import ResponsesReassembler
from adhere.wire.openai_responses._server import ResponsesCodec

__all__ = [
    "ResponsesCodec",
    "ResponsesReassembler",
]
