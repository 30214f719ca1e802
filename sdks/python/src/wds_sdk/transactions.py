"""``/transactions``: a wallet's records grouped by transaction, each named by one category of a fixed
vocabulary with the rule that fired (docs/transactions.md in the service's repository)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Optional, Union

from .models import Model, Spam, Transfer, _Amount, _TransferListBase, nested


class TransactionCategory(str, Enum):
    """The categories the service names today. The service may add one (it never renames one): a
    ``Transaction`` then holds the new value as a plain ``str`` (see ``parse``); the service advises
    reading it as ``CONTRACT_INTERACTION``."""

    SEND = "send"
    RECEIVE = "receive"
    SELF = "self"
    TOKEN_SEND = "token-send"
    TOKEN_RECEIVE = "token-receive"
    NFT_SEND = "nft-send"
    NFT_RECEIVE = "nft-receive"
    SWAP = "swap"
    NFT_PURCHASE = "nft-purchase"
    NFT_SALE = "nft-sale"
    MINT = "mint"
    BURN = "burn"
    AIRDROP = "airdrop"
    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"
    REWARD = "reward"
    YIELD = "yield"
    FEE_ONLY = "fee-only"
    CONTRACT_INTERACTION = "contract-interaction"

    @classmethod
    def parse(cls, value: str) -> Union["TransactionCategory", str]:
        """The member named ``value``, or ``value`` itself for a category newer than this SDK."""
        try:
            return cls(value)
        except ValueError:
            return value

    def __str__(self) -> str:
        return self.value


@dataclass
class TransactionRule(Model):
    """The rule that named a transaction: a stable ``id`` such as ``swap.fungible-for-fungible``, and why."""

    id: str = ""
    explanation: str = ""


@dataclass
class TransactionNetLine(Model, _Amount):
    """One asset's net change in a transaction: received − sent − fee, signed (``base_units`` is an int)."""

    asset: Optional[str] = None
    contract_address: Optional[str] = None
    token_id: Optional[str] = None
    token_decimals: Optional[int] = None
    value: str = "0"
    value_raw: Optional[str] = None

    def _amount_string(self) -> str:
        return self.value

    def _raw_units(self) -> Optional[str]:
        return self.value_raw


@dataclass
class Transaction(Model):
    id: str = ""
    chain: str = ""
    chain_id: Optional[int] = None
    tx_hash: str = ""
    block_number: int = 0
    timestamp: str = ""
    # a TransactionCategory, or the plain string of a category newer than this SDK
    category: Union[TransactionCategory, str] = ""
    rule: TransactionRule = nested(TransactionRule)
    # the wallet signed and paid for it (UTXO chains: it spent an input)
    initiated_by_wallet: bool = False
    status: str = ""
    # flagged when every movement is spam or one is address poisoning; reasons: the union of its movements'
    spam: Optional[Spam] = nested(Spam)
    # the wallet's fee record of this transaction, or None
    fee: Optional[Transfer] = nested(Transfer)
    # the wallet's other records of this transaction, as wallets.transfers gives them
    movements: list[Transfer] = nested(Transfer, many=True, default=None)
    net: list[TransactionNetLine] = nested(TransactionNetLine, many=True, default=None)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Transaction":
        transaction = super().from_dict(data)
        transaction.category = TransactionCategory.parse(transaction.category)
        return transaction

    @property
    def is_known_category(self) -> bool:
        """Whether this SDK knows the category (False for one added to the API later)."""
        return isinstance(self.category, TransactionCategory)

    @property
    def records(self) -> list[Transfer]:
        """The movements and the fee record: every record of the wallet in this transaction."""
        return [*self.movements, *([self.fee] if self.fee is not None else [])]


@dataclass
class TransactionList(_TransferListBase):
    _items: ClassVar[str] = "transactions"
    # newest first; a page never splits a transaction
    transactions: list[Transaction] = nested(Transaction, many=True, default=None)


#: The /openapi.json schema each transaction model is checked against.
TRANSACTION_SCHEMA_MODELS: dict[str, type[Model]] = {
    "Transaction": Transaction,
    "TransactionNetLine": TransactionNetLine,
    "TransactionList": TransactionList,
}
