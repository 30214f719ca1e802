"""Every method once through the real service, pagination against the raw API, models against
/openapi.json, problem codes mapped to their classes."""

from __future__ import annotations

import re
import time
import urllib.parse

import pytest

import wds_sdk
from wds_sdk import (
    SCHEMA_MODELS,
    TRANSACTION_SCHEMA_MODELS,
    AsyncClient,
    Client,
    InvalidAddressError,
    InvalidApiKeyError,
    InvalidCursorError,
    InvalidParameterError,
    MissingApiKeyError,
    NotFoundError,
    QuotaExceededError,
    UnknownChainError,
    WdsError,
    from_base_units,
)

from . import harness as h

client = Client(h.API_KEY, base_url=h.BASE_URL)


def raw_pages(path: str, **query: str) -> list[list[dict]]:
    pages, cursor = [], None
    while True:
        params = {**query, **({"cursor": cursor} if cursor else {})}
        body = h.raw_get(f"{path}?{urllib.parse.urlencode(params)}")
        pages.append(body["transfers"])
        if not body["hasMore"]:
            return pages
        cursor = body["cursor"]


def test_auto_paging_iter_equals_the_raw_pages_in_order_each_once() -> None:
    raw = [t for page in raw_pages(f"/v1/wallets/{h.WALLET}/transfers", chain="ethereum", limit="500") for t in page]
    items = list(client.wallets.transfers(h.WALLET, chain="ethereum", limit=500).auto_paging_iter())
    assert len(raw) > h.MIN_RECORDS
    assert [t.to_dict() for t in items] == raw
    keys = [(t.tx_hash, t.type, t.log_index) for t in items]
    assert len(set(keys)) == len(keys)


def test_max_items_caps_across_a_page_boundary() -> None:
    items = list(client.wallets.transfers(h.WALLET, chain="ethereum", limit=100).auto_paging_iter(max_items=250))
    raw = raw_pages(f"/v1/wallets/{h.WALLET}/transfers", chain="ethereum", limit="1000")[0][:250]
    assert [t.to_dict() for t in items] == raw


def test_a_page_has_cursor_and_has_more_and_the_cursor_continues() -> None:
    first = client.wallets.transfers(h.WALLET, chain="ethereum", limit=3)
    assert (first.has_more, len(first.transfers), isinstance(first.cursor, str)) == (True, 3, True)
    second = client.wallets.transfers(h.WALLET, chain="ethereum", limit=3, cursor=first.cursor)
    both = client.wallets.transfers(h.WALLET, chain="ethereum", limit=6)
    assert first.transfers + second.transfers == both.transfers


def test_erc20_and_nft_transfers() -> None:
    erc20 = list(client.wallets.erc20_transfers(h.WALLET, chain="ethereum", limit=1000).auto_paging_iter())
    raw = [t for page in raw_pages(f"/v1/wallets/{h.WALLET}/erc20-transfers", chain="ethereum", limit="1000") for t in page]
    assert [t.to_dict() for t in erc20] == raw
    assert len([t for t in erc20 if t.contract_address == h.TOKEN and t.direction == "out"]) == h.MIN_RECORDS
    assert erc20[0].base_units == 1_500_001
    nfts = client.wallets.nft_transfers(h.WALLET, chain="ethereum")
    assert [(t.contract_address, t.token_id, t.amount, t.direction) for t in nfts.transfers] == [(h.NFT, "42", "1", "in")]


async def test_async_client_iterates_the_same_records() -> None:
    async with AsyncClient(h.API_KEY, base_url=h.BASE_URL) as aclient:
        items = [t async for t in aclient.wallets.transfers(h.WALLET, chain="ethereum", limit=1000).auto_paging_iter()]
        page = await aclient.wallets.transfers(h.WALLET, chain="ethereum", limit=2)
        rate = await aclient.fx.rate(from_="EUR", to="USD", date="2024-03-01")
    assert items == list(client.wallets.transfers(h.WALLET, chain="ethereum", limit=1000).auto_paging_iter())
    assert page.transfers == items[:2]
    assert rate.rate == 1.0813


def test_transfers_with_filters_and_prices_in_another_currency() -> None:
    import datetime as dt

    page = client.wallets.transfers(
        h.WALLET, chain="ethereum", direction="in", include_fees=False, include_prices=True, currency="EUR",
        from_date=dt.datetime.now(dt.timezone.utc).date(), limit=5,
    )  # fmt: skip
    assert page.currency == "EUR"
    assert all(t.direction == "in" and t.type != "fee" for t in page.transfers)
    assert "price_eur" in page.transfers[0].to_dict() and "value_eur" in page.transfers[0].to_dict()
    assert page.transfers[0].price_in("EUR") is None or isinstance(page.transfers[0].price_in("EUR"), float)
    windows = page.response.rate_limit.windows
    assert [(w.name, w.quota, w.window_seconds) for w in windows] == [("minute", 1_000_000, 60), ("concurrency", 16, None)]
    assert page.response.request_id


def test_balances_are_exact_also_at_an_earlier_block() -> None:
    now = client.wallets.balances(h.WALLET, chain="ethereum")
    token = next(b for b in now.balances if b.contract_address == h.TOKEN)
    assert token.balance == from_base_units(10**30 - h.MIN_RECORDS * 1_500_001, 6)
    assert token.base_units == 10**30 - h.MIN_RECORDS * 1_500_001
    before = client.wallets.balances(h.WALLET, chain="ethereum", at_block=1)
    assert [b for b in before.balances if b.contract_address == h.TOKEN] == []
    assert [(a.chain, a.block_number) for a in before.as_of] == [("ethereum", 1)]


def test_status_fx_and_prices() -> None:
    chains = client.status.chains().chains
    assert len(chains) == 29
    ethereum = next(c for c in chains if c.chain == "ethereum")
    assert (ethereum.chain_id, ethereum.family) == (1, "evm")
    rate = client.fx.rate(from_="EUR", to="USD", date="2024-03-02")
    assert (rate.from_, rate.to, rate.rate_date, rate.carried_forward, rate.rate) == ("EUR", "USD", "2024-03-01", True, 1.0813)
    average = client.fx.monthly_average(currency="EUR", year=2024, month=2)
    assert (average.observations, average.complete, average.to) == (21, True, "USD")
    assert len(client.fx.currencies().currencies) == 36
    price = client.prices.get("btc", date="2024-01-31", currency="EUR")
    assert (price.version, price.symbol, price.currency) == ("2.3", "BTC", "EUR")
    assert price.derivation.fx_rate > 0
    assert "ETH" in [a.symbol for a in client.prices.list().assets]


def test_the_portal_signup_verify_login_account_keys_usage_billing() -> None:
    email = f"py-sdk-{time.time_ns()}@example.com"
    password = "correct horse battery"
    signup = client.developer.signup(email=email, password=password)
    assert (signup.status, signup.email) == ("code_sent", email)
    assert re.fullmatch(r"[\w-]{43}", signup.signup_token)
    first = client.developer.verify(email=email, code=h.mailed_code(email), signup_token=signup.signup_token)
    assert re.fullmatch(r"wds_free_[0-9a-f]{32}", first.key)
    assert first.key not in repr(first)
    portal = client.with_token(client.developer.login(email=email, password=password).token)
    assert (portal.developer.account().email, portal.developer.account().tier) == (email, "free")
    second = portal.developer.keys.create(name="ci")
    assert sorted(k.id for k in portal.developer.keys.list().keys) == sorted([first.id, second.id])
    assert portal.developer.keys.revoke(second.id).revoked_at is not None
    with pytest.raises(WdsError) as revoked:
        Client(second.key, base_url=h.BASE_URL).status.chains()
    assert revoked.value.code == "revoked_api_key"
    Client(first.key, base_url=h.BASE_URL).fx.currencies()
    usage = portal.developer.usage()
    assert usage.total == 1
    assert (usage.current.minute.limit, usage.current.day.used, usage.current.day.limit) == (10, 1, 1000)
    assert usage.current.minute.resets_at > usage.current.at
    assert portal.developer.billing().plan["limits"] == {"perMinute": 10, "perDay": 1000}
    with pytest.raises(WdsError) as no_session:
        client.developer.account()
    assert no_session.value.status == 401


def test_a_truncated_address_without_chain_is_read_as_a_move_address() -> None:
    page = client.wallets.transfers("0x123")
    assert (page.chain, page.address_read_as, page.transfers) == ("all", ["move"], [])


@pytest.mark.parametrize(
    "call,error_class",
    [
        (lambda: client.wallets.transfers("0x123", chain="ethereum"), InvalidAddressError),
        (lambda: client.wallets.transfers(h.WALLET, chain="narnia"), UnknownChainError),
        (lambda: client.wallets.transfers(h.WALLET, chain="ethereum", limit=5000), InvalidParameterError),
        (lambda: client.wallets.transfers(h.WALLET, chain="ethereum", cursor="garbage"), InvalidCursorError),
        (lambda: client.prices.get("NOPE", date="2024-01-01"), NotFoundError),
        (lambda: Client("wds_free_" + "0" * 32, base_url=h.BASE_URL).status.chains(), InvalidApiKeyError),
    ],
)
def test_problem_codes_map_to_their_classes(call, error_class) -> None:
    with pytest.raises(error_class) as caught:
        call()
    assert caught.value.request_id and caught.value.detail


def test_invalid_parameter_names_the_parameter() -> None:
    with pytest.raises(InvalidParameterError) as caught:
        client.wallets.transfers(h.WALLET, chain="ethereum", limit=5000)
    assert caught.value.param == "limit"


def test_no_key_is_missing_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WDS_API_KEY", raising=False)
    with pytest.raises(MissingApiKeyError):
        Client(base_url=h.BASE_URL).status.chains()


def test_quota_exceeded_is_not_retried() -> None:
    h.queue_faults([])
    with pytest.raises(QuotaExceededError) as caught:
        Client(h.QUOTA_KEY, base_url=h.PROXY_URL, max_retries=2).fx.currencies()
    assert caught.value.retry_after_seconds > 0
    assert [w.remaining for w in caught.value.rate_limit.windows if w.name == "day"] == [0]
    assert len(h.seen_by_proxy()) == 1


def test_config_from_env_and_the_key_only_in_the_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WDS_BASE_URL", h.PROXY_URL)
    monkeypatch.setenv("WDS_API_KEY", h.API_KEY)
    from_env = Client()
    h.queue_faults([{"kind": "status", "status": 503, "code": "chain_unavailable"}])
    from_env.wallets.transfers(h.WALLET, chain="ethereum", limit=2)
    from_env.fx.rate(from_="EUR", to="USD", date="2024-01-02")
    seen = h.seen_by_proxy()
    assert len(seen) == 3
    assert all(r["hasKeyHeader"] and h.API_KEY not in r["url"] for r in seen)
    assert h.API_KEY not in repr(from_env) and h.API_KEY not in repr(from_env._settings)
    with pytest.raises(WdsError) as failed:
        from_env.with_options(max_retries=0, base_url=h.PROXY_URL + "/nowhere").status.chains()
    assert h.API_KEY not in f"{failed.value} {failed.value!r} {failed.value.__dict__}"


def test_every_published_field_is_typed() -> None:
    import json
    import urllib.request

    with urllib.request.urlopen(f"{h.BASE_URL}/openapi.json") as answer:
        schemas = json.load(answer)["components"]["schemas"]
    missing = []
    for name, model in {**SCHEMA_MODELS, **TRANSACTION_SCHEMA_MODELS}.items():
        published = schemas[name]["properties"]
        assert published, name
        missing += [f"{name}.{f}" for f in published if not wds_sdk.CURRENCY_FIELD.match(f) and f not in model.json_fields()]
    assert missing == []
