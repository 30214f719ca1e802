"""A client as a Python user makes one: `openapi-python-client generate` on the service's /openapi.json
(into .out/python/wds_api_client, by run.sh), imported and called against the running service, its
answers checked against the raw API. Runs with the standard library's unittest in the tools venv
(scripts/tools-venv.sh), where the generator's own httpx and attrs run the generated code.
"""

from __future__ import annotations

import asyncio
import datetime
import importlib
import os
import pkgutil
import re
import typing
import unittest

import httpx
from wds_api_client import AuthenticatedClient, models
from wds_api_client.api.fx import get_fx_rate
from wds_api_client.api.status import list_chain_statuses
from wds_api_client.api.wallets import list_wallet_transactions, list_wallet_transfers
from wds_api_client.models import (
    FxRate,
    ListWalletTransfersDirection,
    Problem,
    ProblemCode,
    TransactionCategory,
    TransactionList,
    TransferDirection,
    TransferList,
)
from wds_api_client.types import Unset


def required(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run the suite through scripts/test-sdks.sh")
    return value


BASE_URL = required("WDS_BASE_URL")
API_KEY = required("WDS_API_KEY")
WALLET = required("WDS_TEST_WALLET")


def client() -> AuthenticatedClient:
    # the apiKey scheme as the generated client takes it: the key in X-API-Key, no prefix
    return AuthenticatedClient(base_url=BASE_URL, token=API_KEY, auth_header_name="X-API-Key", prefix="")


def raw(path: str, **query: object) -> typing.Any:
    answer = httpx.get(f"{BASE_URL}{path}", params=query, headers={"X-API-Key": API_KEY})
    assert answer.status_code == 200, answer.text
    return answer.json()


ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def times_read(value: typing.Any) -> typing.Any:
    """JSON with its date-times read as datetimes: the generated models parse `format: date-time` and write
    them back in Python's ISO form (+00:00 for Z, no zero milliseconds), the same instants."""
    if isinstance(value, dict):
        return {k: times_read(v) for k, v in value.items()}
    if isinstance(value, list):
        return [times_read(v) for v in value]
    if isinstance(value, str) and ISO_TIME.fullmatch(value):
        return datetime.datetime.fromisoformat(value)
    return value


class GeneratedClientTest(unittest.TestCase):
    maxDiff = 4000
    client: AuthenticatedClient

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = client()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.get_httpx_client().close()

    def test_get_fx_rate_answers_the_raw_rate(self) -> None:
        rate = get_fx_rate.sync(client=self.client, from_="EUR", to="USD", date="2024-03-02")
        assert isinstance(rate, FxRate), rate
        expected = raw("/v1/fx/rate", **{"from": "EUR", "to": "USD", "date": "2024-03-02"})
        self.assertEqual(rate.rate, expected["rate"])
        self.assertEqual(rate.to_dict(), expected)
        self.assertEqual((rate.rate, rate.rate_date, rate.carried_forward), (1.0813, datetime.date(2024, 3, 1), True))

    def test_get_fx_rate_asyncio(self) -> None:
        async def call() -> typing.Any:
            async with client() as c:
                return await get_fx_rate.asyncio(client=c, from_="EUR", to="CHF", date="2024-03-01")

        rate = asyncio.run(call())
        assert isinstance(rate, FxRate), rate
        self.assertEqual(rate.to_dict(), raw("/v1/fx/rate", **{"from": "EUR", "to": "CHF", "date": "2024-03-01"}))

    def test_list_chain_statuses_lists_every_chain(self) -> None:
        statuses = list_chain_statuses.sync(client=self.client)
        assert statuses is not None and not isinstance(statuses, Problem), statuses
        expected = raw("/v1/status/chains")["chains"]
        self.assertEqual(
            [(c.chain, c.chain_id, c.family, c.status.value) for c in statuses.chains],
            [(c["chain"], c["chainId"], c["family"], c["status"]) for c in expected],
        )

    def test_list_wallet_transfers_pages_equal_the_raw_pages(self) -> None:
        cursor: typing.Optional[str] = None
        records = []
        for _ in range(3):
            kwargs = {} if cursor is None else {"cursor": cursor}
            page = list_wallet_transfers.sync(
                WALLET, client=self.client, chain="ethereum", direction=ListWalletTransfersDirection.OUT, limit=50, **kwargs
            )
            assert isinstance(page, TransferList), page
            self.assertEqual(
                times_read(page.to_dict()),
                times_read(raw(f"/v1/wallets/{WALLET}/transfers", chain="ethereum", direction="out", limit=50, **kwargs)),
            )
            records.extend(page.transfers)
            cursor = page.cursor if isinstance(page.cursor, str) else None
            if not page.has_more:
                break
        self.assertEqual(len(records), 150)
        self.assertTrue(all(t.direction is TransferDirection.OUT for t in records))
        self.assertEqual(len({t.id for t in records}), 150)

    def test_list_wallet_transactions_pages_equal_the_raw_pages(self) -> None:
        first = list_wallet_transactions.sync(WALLET, client=self.client, chain="ethereum", limit=2)
        assert isinstance(first, TransactionList) and isinstance(first.cursor, str), first
        second = list_wallet_transactions.sync(WALLET, client=self.client, chain="ethereum", limit=2, cursor=first.cursor)
        assert isinstance(second, TransactionList), second
        for page, kwargs in ((first, {}), (second, {"cursor": first.cursor})):
            expected = raw(f"/v1/wallets/{WALLET}/transactions", chain="ethereum", limit=2, **kwargs)
            self.assertEqual(times_read(page.to_dict()), times_read(expected))
        transactions = first.transactions + second.transactions
        self.assertEqual(
            [(t.category, t.rule.id) for t in transactions],
            [
                (TransactionCategory.MINT, "mint.from-zero"),
                (TransactionCategory.SEND, "send.only-out"),
                (TransactionCategory.TOKEN_SEND, "token-send.only-out"),
                (TransactionCategory.TOKEN_SEND, "token-send.only-out"),
            ],
        )

    def test_an_error_parses_as_problem_with_its_code(self) -> None:
        answer = list_wallet_transfers.sync_detailed("0x123", client=self.client, chain="ethereum")
        self.assertEqual(answer.status_code, 400)
        assert isinstance(answer.parsed, Problem), answer.parsed
        self.assertIs(answer.parsed.code, ProblemCode.INVALID_ADDRESS)

    def test_direction_is_one_enum_type_and_operations_are_named_by_their_operation_ids(self) -> None:
        hint = typing.get_type_hints(list_wallet_transfers.sync)["direction"]
        self.assertEqual(set(typing.get_args(hint)), {ListWalletTransfersDirection, Unset})
        self.assertEqual([d.value for d in ListWalletTransfersDirection], ["both", "in", "out"])
        self.assertEqual(typing.get_type_hints(models.Transfer, localns=vars(models))["direction"], TransferDirection)
        # no string union published as anyOf of constants (…Type0 | …Type1), no operation named by its path
        self.assertEqual([name for name in models.__all__ if "Type0" in name or "Type1" in name], [])
        operations = [
            name
            for group in pkgutil.iter_modules(importlib.import_module("wds_api_client.api").__path__)
            for name in (m.name for m in pkgutil.iter_modules(importlib.import_module(f"wds_api_client.api.{group.name}").__path__))
        ]
        self.assertIn("list_wallet_transfers", operations)
        self.assertIn("list_wallet_transactions", operations)
        self.assertEqual([name for name in operations if "v1" in name], [])


if __name__ == "__main__":
    unittest.main()
