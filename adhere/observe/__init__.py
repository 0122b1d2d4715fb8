"""Observation: the recording proxy, trajectory normalization and instruction-source tagging.

Every model call of a trial goes through the recording proxy (``/t/<trial>/<upstream>/…``),
which records it once, redacted; the normalizer turns a trial's call log into a
Trajectory, and the tagger labels which spans came from which instruction source.
Another harness's logs (mini-vela's) are imported into the same records and normalized
by the same code (:func:`import_minivela`).
"""

from adhere.observe._import import ImportedTrial, import_minivela, read_minivela_logs
from adhere.observe._minivela import MINI_VELA_FORMAT
from adhere.observe._normalize import Truncation, normalize, thread_calls
from adhere.observe._outcomes import MODEL_OUTCOMES, UPSTREAM_FAULTS, call_outcome, outcome_of
from adhere.observe._proxy import RecordingProxy, serve_proxy
from adhere.observe._proxy_config import ProxyConfig, RecordSink, Upstream, parse_upstream
from adhere.observe._proxy_inflight import DEFAULT_SETTLE_SECONDS, Settled
from adhere.observe._proxy_sinks import JsonlDirSink, MemorySink
from adhere.observe._redact import REDACTED, Redactor, redact
from adhere.observe._show import render_trajectory
from adhere.observe._tagging import DEFAULT_RULES, FileRule, find_text, sources_present, tag_sources

__all__ = [
    "DEFAULT_RULES",
    "DEFAULT_SETTLE_SECONDS",
    "FileRule",
    "ImportedTrial",
    "JsonlDirSink",
    "MINI_VELA_FORMAT",
    "MODEL_OUTCOMES",
    "MemorySink",
    "ProxyConfig",
    "RecordSink",
    "REDACTED",
    "RecordingProxy",
    "Redactor",
    "Settled",
    "Truncation",
    "UPSTREAM_FAULTS",
    "Upstream",
    "call_outcome",
    "find_text",
    "import_minivela",
    "normalize",
    "outcome_of",
    "parse_upstream",
    "read_minivela_logs",
    "redact",
    "render_trajectory",
    "serve_proxy",
    "sources_present",
    "tag_sources",
    "thread_calls",
]
