from decimal import Decimal

import pytest

from wds_sdk import (
    ERROR_CLASSES,
    APIConnectionError,
    ChainUnavailableError,
    QuotaExceededError,
    SPAM_REASONS,
    RateLimitedError,
    Transaction,
    TransactionCategory,
    TransactionList,
    Transfer,
    TransferList,
    WdsError,
    from_base_units,
    retry_delay_seconds,
    should_retry,
    to_base_units,
)
from wds_sdk._errors import create_api_error
from wds_sdk._rate_limit import RateLimit, RateLimitWindow, parse_rate_limit
from wds_sdk._retry import parse_retry_after


def api_error(status: int, code: str, retry_after: float | None = None) -> WdsError:
    return create_api_error(status=status, code=code, detail="d", request_id="r", retry_after_seconds=retry_after)


@pytest.mark.parametrize(
    "status,code,expected",
    [
        (408, "http_408", True),
        (409, "key_limit_reached", True),
        (429, "rate_limited", True),
        (429, "quota_exceeded", False),
        (500, "internal", True),
        (501, "http_501", False),
        (502, "upstream_error", True),
        (503, "chain_unavailable", True),
        (400, "invalid_parameter", False),
        (401, "invalid_api_key", False),
        (404, "not_found", False),
    ],
)
def test_should_retry_decides_by_status_and_code(status: int, code: str, expected: bool) -> None:
    assert should_retry(api_error(status, code)) is expected


def test_should_retry_a_failed_connection() -> None:
    assert should_retry(APIConnectionError(status=0, code="connection_error", detail="x"))


def test_backoff_is_min_half_times_two_to_the_n_and_eight_with_jitter() -> None:
    error = api_error(503, "chain_unavailable")
    assert [retry_delay_seconds(n, error, 60, lambda: 0) for n in range(6)] == [0.5, 1, 2, 4, 8, 8]
    assert retry_delay_seconds(1, error, 60, lambda: 1) == 0.75


def test_retry_after_wins_and_goes_beyond_eight_seconds_only_for_rate_limited() -> None:
    assert retry_delay_seconds(0, api_error(429, "rate_limited", 30), 60) == 30
    assert retry_delay_seconds(0, api_error(429, "rate_limited", 61), 60) is None
    assert retry_delay_seconds(0, api_error(503, "chain_unavailable", 3), 60) == 3
    assert retry_delay_seconds(0, api_error(503, "chain_unavailable", 30), 60) is None


def test_retry_after_as_seconds_or_http_date() -> None:
    assert parse_retry_after("7") == 7
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10
    assert parse_retry_after(None) is None


def test_one_class_per_problem_code_and_the_base_class_for_unknown_codes() -> None:
    assert len(ERROR_CLASSES) == 19
    assert isinstance(api_error(429, "rate_limited"), RateLimitedError)
    assert isinstance(api_error(429, "quota_exceeded"), QuotaExceededError)
    assert isinstance(api_error(503, "chain_unavailable"), ChainUnavailableError)
    unknown = api_error(418, "teapot")
    assert (type(unknown), unknown.status, unknown.code, unknown.request_id) == (WdsError, 418, "teapot", "r")


def test_parse_rate_limit_reads_the_ietf_and_x_ratelimit_headers() -> None:
    headers = {
        "ratelimit-policy": '"minute";q=1000;w=60, "day";q=50000;w=86400',
        "ratelimit": '"minute";r=998;t=12, "day";r=49000;t=3600',
        "x-ratelimit-limit": "1000",
        "x-ratelimit-remaining": "998",
        "x-ratelimit-reset": "12",
    }
    assert parse_rate_limit(headers) == RateLimit(
        limit=1000,
        remaining=998,
        reset_seconds=12,
        windows=[RateLimitWindow("minute", 1000, 60, 998, 12), RateLimitWindow("day", 50000, 86400, 49000, 3600)],
    )
    assert parse_rate_limit({}) is None


def test_amounts_convert_exactly() -> None:
    assert to_base_units("1.500001", 6) == 1_500_001
    assert to_base_units("123456789012345678901234567890.123456789012345678", 18) == 123456789012345678901234567890123456789012345678
    assert to_base_units("-0.5", 2) == -50
    with pytest.raises(ValueError):
        to_base_units("0.1234567", 6)
    with pytest.raises(ValueError):
        to_base_units("1e18", 18)
    assert from_base_units(1_500_001, 6) == "1.500001"
    assert from_base_units(5, 18) == "0.000000000000000005"


def test_models_keep_unknown_fields_and_give_exact_amounts() -> None:
    data = {"chain": "ethereum", "from": "0xa", "value": "0.000103290850738488", "newField": {"x": 1}, "price_eur": 2.5}
    transfer = Transfer.from_dict(data)
    assert transfer.from_ == "0xa"
    assert transfer.extra == {"newField": {"x": 1}, "price_eur": 2.5}
    assert transfer.to_dict() == data
    assert transfer.decimal == Decimal("0.000103290850738488")
    assert transfer.base_units == 103290850738488
    assert Transfer.from_dict({**data, "valueRaw": "7"}).base_units == 7
    assert (transfer.price_in("EUR"), transfer.value_in("eur")) == (2.5, None)


def test_a_call_is_the_same_steps_for_both_clients_and_needs_no_io() -> None:
    from dataclasses import replace

    import httpx

    from wds_sdk import FxRate
    from wds_sdk._core import Pause, RequestSpec, exchange, resolve_settings

    settings = resolve_settings(api_key="k", base_url="http://wds.test/", token=None, max_retries=2, timeout=5, max_retry_after=60)
    steps = exchange(settings, RequestSpec("GET", "/v1/fx/rate", {"from": "EUR", "to": "USD", "date": None}), FxRate)
    request = next(steps)
    assert (request.method, request.url, request.params, request.headers["x-api-key"]) == (
        "GET",
        "http://wds.test/v1/fx/rate",
        {"from": "EUR", "to": "USD"},
        "k",
    )
    # a retryable answer: a pause of its Retry-After, then the same request again
    busy = httpx.Response(503, json={"code": "chain_unavailable", "detail": "d"}, headers={"retry-after": "3"})
    assert steps.send(busy) == Pause(3)
    assert steps.send(None) == request
    with pytest.raises(StopIteration) as done:
        steps.send(httpx.Response(200, json={"from": "EUR", "to": "USD", "date": "2024-01-02", "rate": 1.0956}))
    assert (done.value.value.rate, done.value.value.response.status) == (1.0956, 200)
    # a failed connection is retried the same way; once no retry is left, its error is raised
    steps = exchange(replace(settings, max_retries=0), RequestSpec("GET", "/v1/fx/currencies"), FxRate)
    next(steps)
    with pytest.raises(APIConnectionError):
        steps.send(httpx.ConnectError("refused"))


def test_a_category_added_later_is_kept_as_its_string() -> None:
    entry = {
        "id": "BV0ZaGZQ-uSsIaSz", "chain": "ethereum", "chainId": 1, "txHash": "0xe01a", "blockNumber": 20,
        "timestamp": "2026-11-27T19:13:53.000Z", "category": "staking-lock",
        "rule": {"id": "staking-lock.record", "explanation": "a rule this SDK does not know"},
        "initiatedByWallet": True, "status": "success", "fee": None, "movements": [], "net": [],
    }  # fmt: skip
    page = TransactionList.from_dict({"address": "0xabc", "chain": "ethereum", "transactions": [entry, {**entry, "category": "swap"}]})
    unknown, swap = page.transactions
    assert (unknown.category, unknown.is_known_category, unknown.rule.id) == ("staking-lock", False, "staking-lock.record")
    assert not isinstance(unknown.category, TransactionCategory)
    assert (swap.category, swap.is_known_category) == (TransactionCategory.SWAP, True)
    assert unknown.to_dict() == entry
    assert isinstance(unknown, Transaction)


def test_a_spam_reason_added_later_is_kept_as_its_string() -> None:
    spam = {"flagged": True, "reasons": ["address-poisoning", "look-alike-contract"], "source": "computed"}
    data = {"chain": "ethereum", "txHash": "0xe01a", "from": "0xa", "to": "0xb", "value": "0", "spam": spam}
    page = TransferList.from_dict({"address": "0xb", "transfers": [data], "cursor": None, "hasMore": False})
    (transfer,) = page.transfers
    assert transfer.spam is not None
    assert (transfer.spam.flagged, transfer.spam.reasons, transfer.spam.source) == (True, spam["reasons"], "computed")
    assert [reason in SPAM_REASONS for reason in transfer.spam.reasons] == [True, False]
    assert transfer.to_dict() == data
