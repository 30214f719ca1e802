"""The API's resources, written once for both clients: each method returns what the client's
``_request`` returns (a model with Client, an awaitable of one with AsyncClient)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, Literal, Optional, Union
from urllib.parse import quote

from ._core import Query, RequestSpec
from ._export import Destination, ExportFormat
from .models import (
    Account,
    ApiKey,
    ApiKeyList,
    BalanceList,
    Billing,
    ChainStatusList,
    Erc20TransferList,
    FxCurrencyList,
    FxMonthlyAverage,
    FxRate,
    NftTransferList,
    PlanChange,
    Price,
    PricedAssetList,
    Session,
    SignupResult,
    TransferList,
    Usage,
)
from .transactions import TransactionList

if TYPE_CHECKING:
    from ._client import _Transport

Day = Union[str, dt.date]


def _path(*parts: str) -> str:
    return "/" + "/".join(quote(p, safe="") for p in parts)


Auth = Literal["key", "token", "none"]


class _Resource:
    """The request plumbing every endpoint method shares: each method names its path, parameters and
    answer model, and one of these sends it through the client's transport."""

    def __init__(self, transport: "_Transport") -> None:
        self._t = transport

    def _get(self, path: str, model: type, query: Optional[Query] = None, *, auth: Auth = "key") -> Any:
        return self._t._request(RequestSpec("GET", path, query, auth=auth), model)

    def _post(self, path: str, body: Any, model: type, *, auth: Auth = "token", idempotent: bool = False) -> Any:
        """A POST, not retried unless ``idempotent`` (repeating it would do it twice)."""
        return self._t._request(RequestSpec("POST", path, body=body, auth=auth, idempotent=idempotent), model)

    def _delete(self, path: str, model: type, *, auth: Auth = "token") -> Any:
        return self._t._request(RequestSpec("DELETE", path, auth=auth), model)


def _wallet(address: str, endpoint: str) -> str:
    return _path("v1", "wallets", address, endpoint)


class Wallets(_Resource):
    def transfers(
        self,
        address: str,
        *,
        chain: Optional[str] = None,
        from_block: Optional[int] = None,
        to_block: Optional[int] = None,
        from_date: Optional[Day] = None,
        to_date: Optional[Day] = None,
        asset: Optional[str] = None,
        direction: Optional[Literal["in", "out", "both"]] = None,
        include_fees: Optional[bool] = None,
        include_prices: Optional[bool] = None,
        currency: Optional[str] = None,
        exclude_spam: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Any:
        """A wallet's transfers of every kind, newest first; one page, or all of them::

            for t in client.wallets.transfers("0xabc…", chain="ethereum").auto_paging_iter():
                print(t.tx_hash, t.value)
        """
        query = {
            "chain": chain, "fromBlock": from_block, "toBlock": to_block, "fromDate": from_date, "toDate": to_date,
            "asset": asset, "direction": direction, "includeFees": include_fees, "includePrices": include_prices,
            "currency": currency, "excludeSpam": exclude_spam, "limit": limit,
        }  # fmt: skip
        return self._t._list(_wallet(address, "transfers"), query, cursor, TransferList)

    def transactions(
        self,
        address: str,
        *,
        chain: Optional[str] = None,
        from_block: Optional[int] = None,
        to_block: Optional[int] = None,
        from_date: Optional[Day] = None,
        to_date: Optional[Day] = None,
        direction: Optional[Literal["in", "out", "both"]] = None,
        include_prices: Optional[bool] = None,
        currency: Optional[str] = None,
        exclude_spam: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Any:
        """A wallet's transactions, newest first, each with its category, rule, movements, fee and net per
        asset; ``limit`` counts transactions and a page never splits one::

            for tx in client.wallets.transactions("0xabc…", chain="ethereum").auto_paging_iter():
                print(tx.category, tx.rule.id, [(line.asset, line.value) for line in tx.net])
        """
        query = {
            "chain": chain, "fromBlock": from_block, "toBlock": to_block, "fromDate": from_date, "toDate": to_date,
            "direction": direction, "includePrices": include_prices, "currency": currency,
            "excludeSpam": exclude_spam, "limit": limit,
        }  # fmt: skip
        return self._t._list(_wallet(address, "transactions"), query, cursor, TransactionList)

    def erc20_transfers(
        self,
        address: str,
        *,
        chain: Optional[str] = None,
        contract_address: Optional[str] = None,
        from_date: Optional[Day] = None,
        to_date: Optional[Day] = None,
        exclude_spam: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Any:
        """ERC-20 transfers only (``token_symbol``): ``client.wallets.erc20_transfers(addr, chain="ethereum")``"""
        query = {"chain": chain, "contractAddress": contract_address, "fromDate": from_date, "toDate": to_date,
                 "excludeSpam": exclude_spam, "limit": limit}  # fmt: skip
        return self._t._list(_wallet(address, "erc20-transfers"), query, cursor, Erc20TransferList)

    def nft_transfers(
        self,
        address: str,
        *,
        chain: Optional[str] = None,
        contract_address: Optional[str] = None,
        from_date: Optional[Day] = None,
        to_date: Optional[Day] = None,
        exclude_spam: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Any:
        """ERC-721/1155 transfers, one record per token moved: ``client.wallets.nft_transfers(addr)``"""
        query = {"chain": chain, "contractAddress": contract_address, "fromDate": from_date, "toDate": to_date,
                 "excludeSpam": exclude_spam, "limit": limit}  # fmt: skip
        return self._t._list(_wallet(address, "nft-transfers"), query, cursor, NftTransferList)

    def balances(
        self,
        address: str,
        *,
        chain: Optional[str] = None,
        include_prices: Optional[bool] = None,
        currency: Optional[str] = None,
        at_block: Optional[int] = None,
        at_date: Optional[Day] = None,
        exclude_spam: Optional[bool] = None,
    ) -> Any:
        """Balances now, or at a block or date: ``client.wallets.balances(addr, chain="ethereum", at_date="2024-12-31")``"""
        query = {"chain": chain, "includePrices": include_prices, "currency": currency, "atBlock": at_block, "atDate": at_date,
                 "excludeSpam": exclude_spam}  # fmt: skip
        return self._get(_wallet(address, "balances"), BalanceList, query)

    def export(
        self,
        address: str,
        destination: Destination,
        *,
        format: ExportFormat,
        chain: Optional[str] = None,
        from_block: Optional[int] = None,
        to_block: Optional[int] = None,
        from_date: Optional[Day] = None,
        to_date: Optional[Day] = None,
        currency: Optional[str] = None,
        include_spam: Optional[bool] = None,
    ) -> Any:
        """The wallet's history as a tax tool's CSV, streamed to a path or binary writer; an ExportResult::

            client.wallets.export("0xabc…", "koinly-2025.csv", format="koinly", from_date="2025-01-01", to_date="2025-12-31")
        """
        query = {"format": format, "chain": chain, "fromBlock": from_block, "toBlock": to_block, "fromDate": from_date,
                 "toDate": to_date, "currency": currency, "includeSpam": include_spam}  # fmt: skip
        return self._t._stream(RequestSpec("GET", _wallet(address, "export"), query), destination)


class Status(_Resource):
    def chains(self) -> Any:
        """Every chain's indexing state: ``client.status.chains().chains``"""
        return self._get("/v1/status/chains", ChainStatusList)


class Fx(_Resource):
    def rate(self, *, from_: str, to: str, date: Day) -> Any:
        """Units of ``to`` for one ``from_``: ``client.fx.rate(from_="EUR", to="USD", date="2024-03-01").rate``"""
        return self._get("/v1/fx/rate", FxRate, {"from": from_, "to": to, "date": date})

    def monthly_average(self, *, currency: str, year: int, month: int, to: Optional[str] = None) -> Any:
        """The mean of a month's daily rates: ``client.fx.monthly_average(currency="EUR", year=2024, month=2)``"""
        query = {"currency": currency, "year": year, "month": month, "to": to}
        return self._get("/v1/fx/monthly-average", FxMonthlyAverage, query)

    def currencies(self) -> Any:
        """The supported fiat currencies: ``[c.code for c in client.fx.currencies().currencies]``"""
        return self._get("/v1/fx/currencies", FxCurrencyList)


class Prices(_Resource):
    def get(self, symbol: str, *, date: Day, currency: Optional[str] = None) -> Any:
        """A daily close: ``client.prices.get("BTC", date="2024-01-31", currency="EUR").price``"""
        return self._get(_path("v1", "prices", symbol), Price, {"date": date, "currency": currency})

    def list(self) -> Any:
        """The assets with prices, and each one's sources and dates."""
        return self._get("/v1/prices", PricedAssetList)


class Keys(_Resource):
    def list(self) -> Any:
        return self._get("/v1/developer/keys", ApiKeyList, auth="token")

    def create(self, *, name: Optional[str] = None) -> Any:
        """A new key; ``key`` is shown this once. Not retried (a retry could make two keys)."""
        body = {} if name is None else {"name": name}
        return self._post("/v1/developer/keys", body, ApiKey)

    def revoke(self, key_id: str) -> Any:
        """Revokes a key at once and for good (harmless to repeat, so retried)."""
        return self._delete(_path("v1", "developer", "keys", key_id), ApiKey)


class Developer(_Resource):
    """The developer portal. All but signup/verify/login need ``client.with_token(session.token)``."""

    def __init__(self, transport: "_Transport") -> None:
        super().__init__(transport)
        self.keys = Keys(transport)

    def signup(self, *, email: str, password: str) -> Any:
        """Mails a 6-digit code to ``email`` and answers the sign-up's ``signup_token``, which ``verify``
        needs with that code. Not retried: each call sends a new code."""
        return self._post("/v1/developer/signup", {"email": email, "password": password}, SignupResult, auth="none")

    def verify(self, *, email: str, code: str, signup_token: str) -> Any:
        """Verifies the mailed code of the sign-up whose ``signup_token`` is given; returns the account's
        first key, the only time it is shown.

        Example::

            signup = client.developer.signup(email=email, password=password)
            key = client.developer.verify(email=email, code="042917", signup_token=signup.signup_token).key
        """
        body = {"email": email, "code": code, "signupToken": signup_token}
        return self._post("/v1/developer/verify", body, ApiKey, auth="none")

    def login(self, *, email: str, password: str) -> Any:
        """A 24-hour session token. Retried like a GET: logging in twice is harmless."""
        body = {"email": email, "password": password}
        return self._post("/v1/developer/login", body, Session, auth="none", idempotent=True)

    def account(self) -> Any:
        return self._get("/v1/developer/account", Account, auth="token")

    def usage(self, *, from_: Optional[Day] = None, to: Optional[Day] = None) -> Any:
        return self._get("/v1/developer/usage", Usage, {"from": from_, "to": to}, auth="token")

    def billing(self) -> Any:
        return self._get("/v1/developer/billing", Billing, auth="token")

    def change_plan(self, *, tier: str) -> Any:
        """Changes the plan where the deployment allows it. Not retried."""
        return self._post("/v1/developer/billing/plan", {"tier": tier}, PlanChange)
