"""Wire formats of the four API shapes."""

from adhere.wire._apis import (
    CLIENT_AUTH_HEADERS,
    client_keys,
    detect_api,
    error_body,
    error_summary,
    upstream_auth,
    usage_of,
    wants_stream,
)
from adhere.wire._client_codec import ParsedReply, Wire
from adhere.wire._decode import CallView, decode_call
from adhere.wire._exchange import ChatRequest, Conversation, Reply, call_id, is_freeform
from adhere.wire._json import StreamFailure, WireFormatError, parse_json_object
from adhere.wire._reassemble import Reassembly, reassemble
from adhere.wire._reassemble_base import Api, decode_sse
from adhere.wire._server_codec import ApiCodec, DecodedRequest, Outgoing, Target, reply_usage
from adhere.wire._sse import iter_lines, iter_sse

__all__ = [
    "Api",
    "ApiCodec",
    "CLIENT_AUTH_HEADERS",
    "CallView",
    "ChatRequest",
    "Conversation",
    "DecodedRequest",
    "Outgoing",
    "ParsedReply",
    "Reassembly",
    "Reply",
    "StreamFailure",
    "Target",
    "Wire",
    "WireFormatError",
    "call_id",
    "client_keys",
    "decode_call",
    "decode_sse",
    "detect_api",
    "error_body",
    "error_summary",
    "is_freeform",
    "iter_lines",
    "iter_sse",
    "parse_json_object",
    "reassemble",
    "reply_usage",
    "upstream_auth",
    "usage_of",
    "wants_stream",
]
