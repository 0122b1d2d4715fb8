from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from adhere.models import backoff_delay, parse_retry_after
from adhere.spec._endpoint import Limits

NOW = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"Retry-After": "-4"}, 0.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "200", "retry-after": "9"}, 0.2),
        ({"retry-after-ms": "junk", "retry-after": "9"}, 9.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "inf"}, None),
    ],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers, now=NOW) == expected


def test_parse_retry_after_http_date():
    later = format_datetime(NOW + timedelta(seconds=42), usegmt=True)
    assert parse_retry_after({"Retry-After": later}, now=NOW) == pytest.approx(42.0)
    earlier = format_datetime(NOW - timedelta(seconds=42), usegmt=True)
    assert parse_retry_after({"Retry-After": earlier}, now=NOW) == 0.0


LIMITS = Limits(backoff_base_seconds=0.5, backoff_max_seconds=4.0)


@pytest.mark.parametrize(("retry", "ceiling"), [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (9, 4.0)])
def test_full_jitter_bounds(retry, ceiling):
    assert backoff_delay(retry, LIMITS, rng=lambda: 0.0) == 0.0
    assert backoff_delay(retry, LIMITS, rng=lambda: 0.999999) == pytest.approx(ceiling, rel=1e-5)
    assert backoff_delay(retry, LIMITS, rng=lambda: 0.5) == pytest.approx(ceiling / 2)


def test_real_jitter_stays_in_bounds():
    delays = [backoff_delay(3, LIMITS) for _ in range(200)]
    assert all(0.0 <= delay <= 2.0 for delay in delays)
    assert len(set(delays)) > 100


def test_retry_after_wins_but_is_capped():
    assert backoff_delay(1, LIMITS, retry_after=3.0, rng=lambda: 0.0) == 3.0
    assert backoff_delay(1, LIMITS, retry_after=0.0) == 0.0
    assert backoff_delay(1, LIMITS, retry_after=3600.0) == 4.0
