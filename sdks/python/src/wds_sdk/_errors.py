"""One base error, one subclass per problem ``code`` of the API (DESIGN.md §4, docs/errors.md)."""

from __future__ import annotations

from typing import Any, Optional

from ._rate_limit import RateLimit


class WdsError(Exception):
    """Every error the client raises.

    ``status`` is the HTTP status (0 when no answer came), ``code`` the API's stable problem code,
    ``request_id`` the service's X-Request-Id to quote when reporting it.
    """

    def __init__(
        self,
        *,
        status: int,
        code: str,
        detail: str,
        param: Optional[str] = None,
        request_id: Optional[str] = None,
        rate_limit: Optional[RateLimit] = None,
        retry_after_seconds: Optional[float] = None,
        problem: Optional[dict[str, Any]] = None,
    ) -> None:
        where = f" (request id {request_id})" if request_id else ""
        super().__init__(f"{status or 'no answer'} {code}: {detail}{where}")
        self.status = status
        self.code = code
        self.detail = detail
        self.param = param
        self.request_id = request_id
        self.rate_limit = rate_limit
        self.retry_after_seconds = retry_after_seconds
        self.problem = problem


class APIConnectionError(WdsError):
    """No answer: the connection failed or was dropped. Retried."""


class APITimeoutError(APIConnectionError):
    """No answer within ``timeout``. Retried."""


class InvalidParameterError(WdsError): ...
class InvalidAddressError(WdsError): ...
class UnknownChainError(WdsError): ...
class DateRangeTooLargeError(WdsError): ...
class InvalidCursorError(WdsError): ...
class UnsupportedCurrencyError(WdsError): ...
class ApiKeyInQueryError(WdsError): ...
class MissingApiKeyError(WdsError): ...
class InvalidApiKeyError(WdsError): ...
class RevokedApiKeyError(WdsError): ...
class InvalidTokenError(WdsError): ...
class ForbiddenError(WdsError): ...
class NotFoundError(WdsError): ...
class KeyLimitReachedError(WdsError): ...


class RateLimitedError(WdsError):
    """Over the minute's limit: retried after Retry-After (up to ``max_retry_after``)."""


class QuotaExceededError(WdsError):
    """The account's daily quota is used up until 00:00 UTC: never retried."""


class ChainUnavailableError(WdsError): ...
class UpstreamError(WdsError): ...
class InternalError(WdsError): ...


ERROR_CLASSES: dict[str, type[WdsError]] = {
    "invalid_parameter": InvalidParameterError,
    "invalid_address": InvalidAddressError,
    "unknown_chain": UnknownChainError,
    "date_range_too_large": DateRangeTooLargeError,
    "invalid_cursor": InvalidCursorError,
    "unsupported_currency": UnsupportedCurrencyError,
    "api_key_in_query": ApiKeyInQueryError,
    "missing_api_key": MissingApiKeyError,
    "invalid_api_key": InvalidApiKeyError,
    "revoked_api_key": RevokedApiKeyError,
    "invalid_token": InvalidTokenError,
    "forbidden": ForbiddenError,
    "not_found": NotFoundError,
    "key_limit_reached": KeyLimitReachedError,
    "rate_limited": RateLimitedError,
    "quota_exceeded": QuotaExceededError,
    "chain_unavailable": ChainUnavailableError,
    "upstream_error": UpstreamError,
    "internal": InternalError,
}


def create_api_error(**kwargs: Any) -> WdsError:
    """The subclass for the problem's code; an unknown code gets the base class."""
    return ERROR_CLASSES.get(kwargs["code"], WdsError)(**kwargs)
