"""The API's records as dataclasses.

Dataclasses rather than pydantic: no dependency beyond httpx, and building 100,000 records a run stays
cheap. Each model keeps the JSON it was built from (``to_dict()``), so fields the SDK does not know
yet are never lost (they are also in ``extra``); ``price_in``/``value_in`` reach ``price_<ccy>`` and
``value_<ccy>`` for any currency. A test checks the typed fields against the service's /openapi.json.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar, Optional, TypeVar

from ._amounts import decimals_of, to_base_units
from ._rate_limit import RateLimit

M = TypeVar("M", bound="Model")


@dataclass(frozen=True)
class ResponseInfo:
    """What came with an answer besides its body."""

    status: int
    request_id: Optional[str]
    rate_limit: Optional[RateLimit]


def _camel(name: str) -> str:
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part.title() for part in rest)


def nested(model: type, *, many: bool = False, json: Optional[str] = None, default: Any = None) -> Any:
    """A field holding a model (or a list of them)."""
    metadata = {"model": model, "many": many, **({"json": json} if json else {})}
    return field(default=default, metadata=metadata)


def named(json: str, default: Any = None) -> Any:
    """A field whose JSON name is not the camelCase of its Python name."""
    return field(default=default, metadata={"json": json})


@dataclass
class Model:
    """Base of every model: built from the API's JSON, which it keeps."""

    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False, kw_only=True)
    response: Optional[ResponseInfo] = field(default=None, repr=False, compare=False, kw_only=True)
    _raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False, kw_only=True)

    _specs: ClassVar[dict[type, tuple[list[tuple[str, str, Any, bool, Any]], frozenset[str]]]] = {}

    @classmethod
    def _spec(cls) -> tuple[list[tuple[str, str, Any, bool, Any]], frozenset[str]]:
        spec = Model._specs.get(cls)
        if spec is None:
            fields = [
                (
                    f.name,
                    f.metadata.get("json", _camel(f.name)),
                    f.metadata.get("model"),
                    f.metadata.get("many", False),
                    f.default_factory if f.default is dataclasses.MISSING else (lambda d=f.default: d),
                )
                for f in dataclasses.fields(cls)
                if f.name not in ("extra", "response", "_raw")
            ]
            spec = (fields, frozenset(json_name for _, json_name, _, _, _ in fields))
            Model._specs[cls] = spec
        return spec

    @classmethod
    def from_dict(cls: type[M], data: dict[str, Any]) -> M:
        # Built without __init__: this runs once per record, 100,000 times for a long history.
        fields, known = cls._spec()
        obj = object.__new__(cls)
        values = obj.__dict__
        matched = 0
        for attr, json_name, model, many, default in fields:
            if json_name in data:
                matched += 1
                value = data[json_name]
                if model is not None and value is not None:
                    value = [model.from_dict(v) for v in value] if many else model.from_dict(value)
                values[attr] = value
            else:
                values[attr] = default()
        values["extra"] = {k: v for k, v in data.items() if k not in known} if matched < len(data) else {}
        values["response"] = None
        values["_raw"] = data
        return obj

    @classmethod
    def json_fields(cls) -> list[str]:
        """The JSON names of the typed fields."""
        return [json_name for _, json_name, _, _, _ in cls._spec()[0]]

    def to_dict(self) -> dict[str, Any]:
        """The JSON as the service sent it, unknown fields included."""
        return self._raw

    def get(self, json_name: str, default: Any = None) -> Any:
        """Any field by its JSON name, typed or not."""
        return self._raw.get(json_name, default)

    def price_in(self, currency: str) -> Optional[float]:
        """``price_<ccy>``: a number, None when no price is known or prices were not asked for."""
        return self._raw.get(f"price_{currency.lower()}")

    def value_in(self, currency: str) -> Optional[float]:
        """``value_<ccy>`` (see price_in)."""
        return self._raw.get(f"value_{currency.lower()}")


class _Amount:
    def _amount_string(self) -> str:
        raise NotImplementedError

    def _raw_units(self) -> Optional[str]:
        return None

    @property
    def decimal(self) -> Decimal:
        """The amount as an exact Decimal."""
        return Decimal(self._amount_string())

    @property
    def base_units(self) -> int:
        """The amount in base units: ``valueRaw``/``balanceRaw`` when sent, else the string read exactly."""
        raw = self._raw_units()
        if raw is not None:
            return int(raw)
        amount = self._amount_string()
        return to_base_units(amount, decimals_of(amount))


# The spam reasons the service documents (docs/spam.md); a reason added later arrives as its string.
SPAM_REASONS = (
    "impersonates-listed-token",
    "lure-in-metadata",
    "mass-airdrop",
    "address-poisoning",
    "zero-value-transfer-from",
)


@dataclass
class Spam(Model):
    """Whether a record (or a balance's token) is spam, the reasons that fired (strings: see SPAM_REASONS),
    and ``source``: "computed", or "account" when the account's override decided."""

    flagged: bool = False
    reasons: list[str] = field(default_factory=list)
    source: str = "computed"


@dataclass
class Transfer(Model, _Amount):
    chain: str = ""
    chain_id: Optional[int] = None
    tx_hash: str = ""
    block_number: int = 0
    timestamp: str = ""
    type: str = ""
    from_: str = named("from", "")
    to: Optional[str] = None
    value: str = "0"
    asset: Optional[str] = None
    contract_address: Optional[str] = None
    token_id: Optional[str] = None
    token_decimals: Optional[int] = None
    log_index: Optional[int] = None
    direction: str = ""
    id: Optional[str] = None
    value_raw: Optional[str] = None
    # UTXO chains: every sender of an `in`, every recipient of an `out`, with its share
    counterparties: Optional[list[dict[str, Any]]] = None
    # on /transfers (not on a transaction's movements yet); a flagged record is never priced
    spam: Optional[Spam] = nested(Spam)

    def _amount_string(self) -> str:
        return self.value

    def _raw_units(self) -> Optional[str]:
        return self.value_raw


@dataclass
class Erc20Transfer(Model, _Amount):
    chain: str = ""
    chain_id: Optional[int] = None
    tx_hash: str = ""
    block_number: int = 0
    log_index: int = 0
    timestamp: str = ""
    from_: str = named("from", "")
    to: str = ""
    contract_address: str = ""
    token_symbol: Optional[str] = None
    token_decimals: Optional[int] = None
    value: str = "0"
    direction: str = ""
    id: Optional[str] = None
    value_raw: Optional[str] = None
    spam: Optional[Spam] = nested(Spam)

    def _amount_string(self) -> str:
        return self.value

    def _raw_units(self) -> Optional[str]:
        return self.value_raw


@dataclass
class NftTransfer(Model, _Amount):
    chain: str = ""
    chain_id: Optional[int] = None
    tx_hash: str = ""
    block_number: int = 0
    log_index: int = 0
    batch_index: int = 0
    timestamp: str = ""
    from_: str = named("from", "")
    to: str = ""
    contract_address: str = ""
    token_id: str = ""
    token_standard: str = ""
    amount: str = "0"
    operator: Optional[str] = None
    collection_name: Optional[str] = None
    collection_symbol: Optional[str] = None
    direction: str = ""
    id: Optional[str] = None
    spam: Optional[Spam] = nested(Spam)

    def _amount_string(self) -> str:
        return self.amount


@dataclass
class UnavailableChain(Model):
    chain: str = ""
    code: str = ""


@dataclass
class _TransferListBase(Model):
    address: str = ""
    chain: str = ""
    # all-chains mode: the address formats that read the address ("evm", "move", ...)
    address_read_as: Optional[list[str]] = None
    chains: Optional[list[str]] = None
    unavailable_chains: Optional[list[UnavailableChain]] = nested(UnavailableChain, many=True)
    currency: Optional[str] = None
    cursor: Optional[str] = None
    has_more: bool = False
    _pager: Any = field(default=None, repr=False, compare=False, kw_only=True)
    # the field holding the page's items
    _items: ClassVar[str] = "transfers"

    def auto_paging_iter(self, max_items: Optional[int] = None) -> Any:
        """Every item from this page on, following ``cursor`` until ``has_more`` is false.

        An iterator with ``Client``, an async iterator with ``AsyncClient``.
        """
        return self._pager.items(max_items)


@dataclass
class TransferList(_TransferListBase):
    transfers: list[Transfer] = nested(Transfer, many=True, default=None)


@dataclass
class Erc20TransferList(_TransferListBase):
    transfers: list[Erc20Transfer] = nested(Erc20Transfer, many=True, default=None)


@dataclass
class NftTransferList(_TransferListBase):
    transfers: list[NftTransfer] = nested(NftTransfer, many=True, default=None)


@dataclass
class Balance(Model, _Amount):
    chain: str = ""
    chain_id: Optional[int] = None
    type: str = ""
    asset: Optional[str] = None
    name: Optional[str] = None
    contract_address: Optional[str] = None
    token_decimals: Optional[int] = None
    balance: str = "0"
    balance_raw: Optional[str] = None
    priced: Optional[bool] = None
    spam: Optional[Spam] = nested(Spam)

    def _amount_string(self) -> str:
        return self.balance

    def _raw_units(self) -> Optional[str]:
        return self.balance_raw


@dataclass
class AsOf(Model):
    chain: str = ""
    block_number: int = 0
    timestamp: str = ""


@dataclass
class BalanceList(Model):
    address: str = ""
    chain: str = ""
    # all-chains mode: the address formats that read the address ("evm", "move", ...)
    address_read_as: Optional[list[str]] = None
    chains: Optional[list[str]] = None
    unavailable_chains: Optional[list[UnavailableChain]] = nested(UnavailableChain, many=True)
    currency: Optional[str] = None
    as_of: list[AsOf] = nested(AsOf, many=True, default=None)
    balances: list[Balance] = nested(Balance, many=True, default=None)
    priced: Optional[bool] = None
    # an extended key or descriptor: each derived address that holds coins, with its balance
    addresses: Optional[list[dict[str, Any]]] = None

    def total_value_in(self, currency: str) -> Optional[float]:
        """``total_value_<ccy>``: the sum over priced balances."""
        return self._raw.get(f"total_value_{currency.lower()}")


@dataclass
class ChainStatus(Model):
    chain: str = ""
    chain_id: Optional[int] = None
    name: str = ""
    family: str = ""
    coverage: str = ""
    status: str = ""
    latest_block: Optional[int] = None
    indexed_block: Optional[int] = None
    indexed_from: Optional[int] = None
    lag_blocks: Optional[int] = None
    lag_seconds: Optional[int] = None
    last_block_time: Optional[str] = None
    last_error: Optional[str] = None


@dataclass
class ChainStatusList(Model):
    updated_at: str = ""
    chains: list[ChainStatus] = nested(ChainStatus, many=True, default=None)


@dataclass
class FxRate(Model):
    from_: str = named("from", "")
    to: str = ""
    date: str = ""
    rate: float = 0.0
    rate_date: str = ""
    carried_forward: bool = False
    source: str = ""


@dataclass
class FxMonthlyAverage(Model):
    currency: str = ""
    to: str = ""
    year: int = 0
    month: int = 0
    rate: float = 0.0
    observations: int = 0
    first_date: str = ""
    last_date: str = ""
    complete: bool = False
    method: str = ""
    source: str = ""


@dataclass
class FxCurrency(Model):
    code: str = ""
    name: str = ""
    source: str = ""
    first_date: str = ""
    last_date: str = ""
    reason: Optional[str] = None


@dataclass
class FxCurrencyList(Model):
    currencies: list[FxCurrency] = nested(FxCurrency, many=True, default=None)
    discontinued: list[FxCurrency] = nested(FxCurrency, many=True, default=None)


@dataclass
class PriceDerivation(Model):
    price_date: str = ""
    usd_price: float = 0.0
    quote: str = ""
    fx_rate: Optional[float] = None
    fx_rate_date: Optional[str] = None


@dataclass
class Price(Model):
    version: str = ""
    symbol: str = ""
    date: str = ""
    currency: str = ""
    price: float = 0.0
    source: str = ""
    quality_score: float = 0.0
    derivation: Optional[PriceDerivation] = nested(PriceDerivation)


@dataclass
class PriceSource(Model):
    source: str = ""
    quote: str = ""
    first_date: str = ""
    last_date: str = ""


@dataclass
class PricedAsset(Model):
    symbol: str = ""
    sources: list[PriceSource] = nested(PriceSource, many=True, default=None)


@dataclass
class PricedAssetList(Model):
    assets: list[PricedAsset] = nested(PricedAsset, many=True, default=None)


@dataclass
class ApiKey(Model):
    id: str = ""
    name: Optional[str] = None
    tier: str = ""
    hint: str = ""
    created_at: str = ""
    last_used_at: Optional[str] = None
    revoked_at: Optional[str] = None
    key: Optional[str] = None
    """The full key: only when just created (verify, keys.create), never again."""

    def __repr__(self) -> str:  # the full key never goes to a log through repr()
        return f"ApiKey(id={self.id!r}, name={self.name!r}, tier={self.tier!r}, hint={self.hint!r})"


@dataclass
class ApiKeyList(Model):
    keys: list[ApiKey] = nested(ApiKey, many=True, default=None)


@dataclass
class SignupResult(Model):
    status: str = ""
    email: str = ""
    signup_token: str = ""
    """Goes to ``developer.verify`` with the mailed code (it is never mailed)."""


@dataclass
class Session(Model):
    token: str = field(default="", repr=False)
    expires_at: str = ""


@dataclass
class Account(Model):
    id: str = ""
    email: str = ""
    tier: str = ""
    created_at: str = ""
    verified_at: Optional[str] = None


@dataclass
class UsageWindow(Model):
    """A rate-limit window as the limiter counts it right now; ``limit`` None: unlimited."""

    used: int = 0
    limit: Optional[int] = None
    resets_at: str = ""


@dataclass
class CurrentUsage(Model):
    """The running UTC minute and day from the rate limiter's own counters, read at ``at`` (the server's clock)."""

    at: str = ""
    minute: Optional[UsageWindow] = nested(UsageWindow)
    day: Optional[UsageWindow] = nested(UsageWindow)


@dataclass
class Usage(Model):
    """Requests per day and key (``days`` as the API sends them), and the running minute and day."""

    from_: str = named("from", "")
    to: str = ""
    total: int = 0
    days: list[dict[str, Any]] = field(default_factory=list)
    current: Optional[CurrentUsage] = nested(CurrentUsage)


@dataclass
class Billing(Model):
    plan: dict[str, Any] = field(default_factory=dict)
    payment: str = ""
    current_period: dict[str, Any] = field(default_factory=dict)
    invoices: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class PlanChange(Model):
    tier: str = ""
    changed: bool = False


CURRENCY_FIELD = re.compile(r"^(price|value|total_value)_[a-z]{3}$")

#: The /openapi.json schema each model is checked against.
SCHEMA_MODELS: dict[str, type[Model]] = {
    "Transfer": Transfer,
    "Erc20Transfer": Erc20Transfer,
    "NftTransfer": NftTransfer,
    "TransferList": TransferList,
    "Erc20TransferList": Erc20TransferList,
    "NftTransferList": NftTransferList,
    "Balance": Balance,
    "BalanceList": BalanceList,
    "Spam": Spam,
    "ChainStatus": ChainStatus,
    "ChainStatusList": ChainStatusList,
    "FxRate": FxRate,
    "FxMonthlyAverage": FxMonthlyAverage,
    "FxCurrencyList": FxCurrencyList,
    "Price": Price,
    "PricedAssetList": PricedAssetList,
}
