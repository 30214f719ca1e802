"""Retries and backoff through the fault proxy in front of the real service."""

from __future__ import annotations

import asyncio
import time

import pytest

from wds_sdk import (
    APIConnectionError,
    APITimeoutError,
    AsyncClient,
    ChainUnavailableError,
    Client,
    InvalidParameterError,
    RateLimitedError,
    WdsError,
)

from . import harness as h

client = Client(h.API_KEY, base_url=h.PROXY_URL)


def test_a_drop_and_a_503_are_retried_after_half_then_one_second_less_jitter() -> None:
    h.queue_faults([{"kind": "drop"}, {"kind": "status", "status": 503, "code": "chain_unavailable"}])
    assert len(client.status.chains().chains) == 29
    seen = h.seen_by_proxy()
    assert len(seen) == 3
    first, second = h.gaps_ms(seen)
    assert 375 <= first < 700
    assert 750 <= second < 1200


def test_gives_up_after_max_retries_with_the_last_error() -> None:
    h.queue_faults([{"kind": "status", "status": s, "code": "internal"} for s in (500, 502)] + [{"kind": "status", "status": 503, "code": "chain_unavailable"}])
    with pytest.raises(ChainUnavailableError) as caught:
        client.fx.currencies()
    assert caught.value.request_id == "proxy-3"
    assert len(h.seen_by_proxy()) == 3


def test_max_retries_zero_makes_one_attempt() -> None:
    h.queue_faults([{"kind": "status", "status": 503, "code": "chain_unavailable"}])
    with pytest.raises(ChainUnavailableError):
        client.with_options(max_retries=0).fx.currencies()
    assert len(h.seen_by_proxy()) == 1


def test_rate_limited_waits_the_retry_after_sent() -> None:
    h.queue_faults([{"kind": "status", "status": 429, "code": "rate_limited", "headers": {"retry-after": "2"}}])
    assert client.fx.rate(from_="EUR", to="USD", date="2024-01-02").rate > 1
    (gap,) = h.gaps_ms(h.seen_by_proxy())
    assert 1990 <= gap < 2500


def test_a_retry_after_past_the_ceiling_fails_at_once() -> None:
    headers = {"retry-after": "30", "x-ratelimit-limit": "10", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "30"}
    h.queue_faults([{"kind": "status", "status": 429, "code": "rate_limited", "headers": headers}])
    started = time.monotonic()
    with pytest.raises(RateLimitedError) as caught:
        client.with_options(max_retry_after=5).status.chains()
    assert time.monotonic() - started < 1
    assert (caught.value.retry_after_seconds, caught.value.rate_limit.remaining) == (30, 0)
    assert len(h.seen_by_proxy()) == 1


def test_other_4xx_and_501_are_not_retried() -> None:
    h.queue_faults([{"kind": "status", "status": 400, "code": "invalid_parameter"}])
    with pytest.raises(InvalidParameterError):
        client.status.chains()
    assert len(h.seen_by_proxy()) == 1
    h.queue_faults([{"kind": "status", "status": 501, "code": "not_implemented"}])
    with pytest.raises(WdsError) as caught:
        client.status.chains()
    assert (type(caught.value), caught.value.status, caught.value.code) == (WdsError, 501, "not_implemented")
    assert len(h.seen_by_proxy()) == 1


def test_a_slow_answer_times_out_is_retried_and_the_next_attempt_answers() -> None:
    quick = client.with_options(timeout=0.3)
    h.queue_faults([{"kind": "slow", "delayMs": 1000}])
    assert len(quick.fx.currencies().currencies) == 36
    assert len(h.seen_by_proxy()) == 2
    h.queue_faults([{"kind": "slow", "delayMs": 1000}])
    with pytest.raises(APITimeoutError) as caught:
        quick.with_options(max_retries=0).fx.currencies()
    assert isinstance(caught.value, APIConnectionError)


def test_signup_is_not_retried_login_is() -> None:
    h.queue_faults([{"kind": "status", "status": 503, "code": "internal"}])
    with pytest.raises(WdsError) as signup:
        client.developer.signup(email="nobody@example.com", password="long enough pw")
    assert signup.value.status == 503
    assert len(h.seen_by_proxy()) == 1
    h.queue_faults([{"kind": "drop"}])
    with pytest.raises(WdsError) as login:
        client.developer.login(email="nobody@example.com", password="long enough pw")
    assert login.value.status == 401
    assert [r["method"] for r in h.seen_by_proxy()] == ["POST", "POST"]


def test_pagination_retries_a_failed_page_and_goes_on() -> None:
    direct = Client(h.API_KEY, base_url=h.BASE_URL)
    expected = list(direct.wallets.transfers(h.WALLET, chain="ethereum", limit=1000).auto_paging_iter(max_items=3000))
    h.queue_faults([{"kind": "pass"}, {"kind": "status", "status": 502, "code": "upstream_error"}, {"kind": "drop"}])
    items = list(client.wallets.transfers(h.WALLET, chain="ethereum", limit=1000).auto_paging_iter(max_items=3000))
    assert items == expected
    assert len(h.seen_by_proxy()) == 5


async def test_the_async_client_retries_the_same_way() -> None:
    h.queue_faults([{"kind": "drop"}, {"kind": "status", "status": 503, "code": "chain_unavailable"}])
    async with AsyncClient(h.API_KEY, base_url=h.PROXY_URL) as aclient:
        assert len((await aclient.status.chains()).chains) == 29
    first, second = h.gaps_ms(h.seen_by_proxy())
    assert 375 <= first < 700 and 750 <= second < 1200


async def test_calls_in_parallel_all_answer_those_past_the_accounts_concurrency_after_its_retry_after() -> None:
    # the service runs 2 requests of an account at once (WDS_ACCOUNT_CONCURRENCY) and refuses the others with
    # 429 rate_limited and Retry-After: 1; 4 at once need at most 2 retries. Whether they overlap is the
    # machine's timing: every request past the first 4 is a refused one sent again, a second or more later
    h.queue_faults([])
    async with AsyncClient(h.API_KEY, base_url=h.PROXY_URL) as aclient:
        pages = await asyncio.gather(*(aclient.wallets.transfers(h.WALLET, chain="ethereum", limit=1000) for _ in range(4)))
    assert all(page.transfers == pages[0].transfers for page in pages)
    seen = h.seen_by_proxy()
    if len(seen) > 4:
        assert any(gap >= 990 for gap in h.gaps_ms(seen))
