"""The four API shapes on the wire: the one place that reads or writes their JSON and SSE.

Shapes: Anthropic Messages (:mod:`adhere.wire.anthropic`), OpenAI Chat Completions
(:mod:`adhere.wire.openai_chat`), OpenAI Responses (:mod:`adhere.wire.openai_responses`)
and Gemini ``generateContent`` (:mod:`adhere.wire.gemini`). Each shape's folder holds
its sides: ``_client`` (model clients), ``_server`` (the test double), ``_reassemble``
(the recorder) and ``_decode`` (the normalizer). What the shapes share lives here:

======================  ================================================  =================
module                  what it does                                      used by
======================  ================================================  =================
``_exchange``           neutral request / conversation / reply            everyone
                        (:class:`ChatRequest`, :class:`Conversation`,
                        :class:`Reply`)
``_json``               typed access to JSON with errors naming the       every codec
                        field; text parts
``_sse``                server-sent events: decode lines, encode events   clients, test double
``_client_codec``       the :class:`Wire` protocol a model client         model clients
                        drives (URL, headers, body, reply, stream)
``_server_codec``       the :class:`ApiCodec` protocol the test double    test double
                        drives; word-count usage, streaming pieces
``_apis``               what the recorder knows per shape: the shape of   recording proxy
                        a path, auth headers, error bodies, usage
``_recorded``           a forwarded call's bytes into the record's        recording proxy
                        request, response, error and usage
``_sampling``           sampling settings, tool choice and stop reasons   recording proxy
                        in every shape; an endpoint's :class:`Controls`
``_translate``          one call from a client's shape to an upstream's   recording proxy
                        and its answer back (:func:`plan_call`,
                        :func:`translate_answer`)
``_reassemble*``        a recorded stream back into the non-streaming     recording proxy
                        response (through :func:`read_answer`)
``_stream_end``         whether a relayed stream's final event passed     recording proxy
                        (:class:`StreamEnd`)
``_outcome``            the model-side outcome of an answer: context      recording proxy,
                        length, refusal, output cap, empty                reports
                        (:func:`reply_outcome`)
``_decode*``            a recorded call into neutral messages             normalizer
                        (:func:`decode_call`)
``_probe``              the smallest chat call in each shape and          ``adhere run``'s
                        whether its answer reads as a reply               endpoint check
                        (:func:`probe_call`, :func:`probe_problem`)
======================  ================================================  =================

Nothing outside this package parses or builds an API's JSON.
"""

from adhere.wire._apis import (
    CLIENT_AUTH_HEADERS,
    cached_input_tokens_of,
    client_keys,
    detect_api,
    error_body,
    error_detail,
    reasoning_tokens_of,
    upstream_auth,
    upstream_query,
    wants_stream,
)
from adhere.wire._client_codec import ParsedReply, Wire
from adhere.wire._decode import CallView, RecordedCall, decode_call
from adhere.wire._exchange import ChatRequest, Conversation, Reply, call_id, is_freeform
from adhere.wire._json import StreamFailure, WireFormatError, parse_json_object
from adhere.wire._outcome import MODEL_OUTCOMES, reply_outcome
from adhere.wire._probe import PROBE_TEXT, probe_call, probe_problem
from adhere.wire._reassemble_base import Api
from adhere.wire._recorded import RecordedAnswer, parse_body, read_answer
from adhere.wire._sampling import Controls, Sampling, apply_controls, read_sampling, stop_of
from adhere.wire._server_codec import (
    ApiCodec,
    DecodedRequest,
    Outgoing,
    StopReason,
    Target,
    model_list,
    reply_usage,
)
from adhere.wire._sse import SSE_CONTENT_TYPE, is_event_stream, iter_lines, iter_sse
from adhere.wire._stream_end import StreamEnd
from adhere.wire._translate import (
    ClientAnswer,
    LocalAnswer,
    Plan,
    is_chat_call,
    plan_call,
    translate_answer,
)

__all__ = [
    "CLIENT_AUTH_HEADERS",
    "SSE_CONTENT_TYPE",
    "Api",
    "ApiCodec",
    "CallView",
    "ChatRequest",
    "ClientAnswer",
    "Controls",
    "Conversation",
    "DecodedRequest",
    "LocalAnswer",
    "MODEL_OUTCOMES",
    "PROBE_TEXT",
    "Outgoing",
    "ParsedReply",
    "Plan",
    "RecordedAnswer",
    "RecordedCall",
    "Reply",
    "Sampling",
    "StopReason",
    "SSE_CONTENT_TYPE",
    "StreamEnd",
    "StreamFailure",
    "Target",
    "Wire",
    "WireFormatError",
    "apply_controls",
    "cached_input_tokens_of",
    "reasoning_tokens_of",
    "call_id",
    "client_keys",
    "decode_call",
    "detect_api",
    "error_body",
    "error_detail",
    "is_chat_call",
    "is_event_stream",
    "is_freeform",
    "iter_lines",
    "iter_sse",
    "model_list",
    "parse_body",
    "parse_json_object",
    "plan_call",
    "probe_call",
    "probe_problem",
    "read_answer",
    "read_sampling",
    "reply_outcome",
    "reply_usage",
    "stop_of",
    "translate_answer",
    "upstream_auth",
    "upstream_query",
    "wants_stream",
]
