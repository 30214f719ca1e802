"""wallets.transactions through the real service (scripts/sdk-harness.ts): the harness's history has
contract deployments (fee-only), two mints (the token, an NFT), ERC-20 transactions of up to 1,000
transfers each (token-send) and a native send."""

from __future__ import annotations

import urllib.parse

import pytest

from wds_sdk import (
    AsyncClient,
    Client,
    InvalidCursorError,
    InvalidParameterError,
    Transaction,
    TransactionCategory,
    TransactionList,
)

from . import harness as h

client = Client(h.API_KEY, base_url=h.BASE_URL)


def raw_transaction_pages(**query: str) -> list[list[dict]]:
    pages, cursor = [], None
    while True:
        params = {**query, **({"cursor": cursor} if cursor else {})}
        body = h.raw_get(f"/v1/wallets/{h.WALLET}/transactions?{urllib.parse.urlencode(params)}")
        pages.append(body["transactions"])
        if not body["hasMore"]:
            return pages
        cursor = body["cursor"]


def test_a_page_the_newest_transactions_with_category_rule_fee_movements_and_net() -> None:
    page = client.wallets.transactions(h.WALLET, chain="ethereum", limit=3)
    assert isinstance(page, TransactionList)
    assert (page.has_more, isinstance(page.cursor, str)) == (True, True)
    assert [(t.category, t.rule.id, t.status, t.initiated_by_wallet) for t in page.transactions] == [
        (TransactionCategory.MINT, "mint.from-zero", "success", True),
        (TransactionCategory.SEND, "send.only-out", "success", True),
        (TransactionCategory.TOKEN_SEND, "token-send.only-out", "success", True),
    ]
    nft_mint, send, token_send = page.transactions
    assert (nft_mint.net[0].contract_address, nft_mint.net[0].token_id, nft_mint.net[0].value) == (h.NFT, "42", "1")
    assert send.fee is not None and send.fee.type == "fee"
    # 1 ETH and one wei sent, and the fee
    assert [line.base_units for line in send.net] == [-(10**18 + 1) - send.fee.base_units]
    token_line = next(line for line in token_send.net if line.contract_address == h.TOKEN)
    assert token_line.base_units == -len(token_send.movements) * 1_500_001
    assert all(m.type == "erc20" and m.direction == "out" and m.tx_hash == token_send.tx_hash for m in token_send.movements)


def test_auto_paging_iter_follows_the_cursor_every_transaction_once_and_whole() -> None:
    raw = raw_transaction_pages(chain="ethereum", limit="2")
    items = list(client.wallets.transactions(h.WALLET, chain="ethereum", limit=2).auto_paging_iter())
    assert len(raw) > 2
    assert [t.to_dict() for t in items] == [t for page in raw for t in page]
    assert len({t.tx_hash for t in items}) == len(items)
    # no transaction split across pages: together they hold exactly the wallet's records, each once
    transfers = client.wallets.transfers(h.WALLET, chain="ethereum", limit=1000).auto_paging_iter()
    assert sorted(r.id for t in items for r in t.records) == sorted(t.id for t in transfers)
    assert {t.category for t in items} == {"mint", "send", "token-send", "fee-only"}
    assert all(t.is_known_category for t in items)
    assert sum(len(t.movements) for t in items if t.category == TransactionCategory.TOKEN_SEND) == h.MIN_RECORDS


async def test_the_async_client_iterates_the_same_transactions() -> None:
    async with AsyncClient(h.API_KEY, base_url=h.BASE_URL) as aclient:
        items = [t async for t in aclient.wallets.transactions(h.WALLET, chain="ethereum", limit=3).auto_paging_iter()]
    assert items == list(client.wallets.transactions(h.WALLET, chain="ethereum", limit=3).auto_paging_iter())


def test_prices_in_another_currency_on_each_net_line() -> None:
    page = client.wallets.transactions(h.WALLET, chain="ethereum", include_prices=True, currency="EUR", limit=2)
    assert page.currency == "EUR"
    lines = [line for t in page.transactions for line in t.net]
    assert lines and all("price_eur" in line.to_dict() for line in lines)
    assert all(line.price_in("EUR") is None or isinstance(line.price_in("EUR"), float) for line in lines)


def test_the_sdk_knows_every_category_the_service_publishes() -> None:
    import json
    import urllib.request

    with urllib.request.urlopen(f"{h.BASE_URL}/openapi.json") as answer:
        published = json.load(answer)["components"]["schemas"]["Transaction"]["properties"]["category"]["enum"]
    assert [c.value for c in TransactionCategory] == published


def test_bad_parameters_are_typed_errors_naming_the_parameter() -> None:
    with pytest.raises(InvalidParameterError) as limit:
        client.wallets.transactions(h.WALLET, chain="ethereum", limit=0)
    assert limit.value.param == "limit"
    with pytest.raises(InvalidParameterError) as direction:
        client.wallets.transactions(h.WALLET, chain="ethereum", direction="up")  # type: ignore[arg-type]
    assert direction.value.param == "direction"
    with pytest.raises(InvalidCursorError):
        client.wallets.transactions(h.WALLET, chain="ethereum", cursor="garbage")


def test_transaction_records_are_its_movements_and_fee() -> None:
    tx = Transaction.from_dict({"category": "send", "movements": [{"id": "a"}], "fee": {"id": "f"}, "net": []})
    assert [r.id for r in tx.records] == ["a", "f"]
