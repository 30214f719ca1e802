"""Python client for the WDS wallet data API.

    from wds_sdk import Client
    client = Client()  # WDS_BASE_URL, WDS_API_KEY
    for t in client.wallets.transfers("0xabc…", chain="ethereum").auto_paging_iter():
        print(t.tx_hash, t.value)
"""

from ._amounts import from_base_units, to_base_units, to_decimal
from ._client import AsyncClient, Client
from ._errors import *  # noqa: F403
from ._errors import ERROR_CLASSES, WdsError
from ._export import ExportFormat, ExportResult
from ._pagination import AsyncPageRequest
from ._rate_limit import RateLimit, RateLimitWindow
from ._retry import retry_delay_seconds, should_retry
from .models import *  # noqa: F403
from .transactions import (
    TRANSACTION_SCHEMA_MODELS,
    Transaction,
    TransactionCategory,
    TransactionList,
    TransactionNetLine,
    TransactionRule,
)

__version__ = "0.1.0"
