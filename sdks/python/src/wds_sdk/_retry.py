from __future__ import annotations

import random
from email.utils import parsedate_to_datetime
from typing import Callable, Optional
import time

from ._errors import APIConnectionError, WdsError

INITIAL_RETRY_DELAY_SECONDS = 0.5
MAX_RETRY_DELAY_SECONDS = 8.0


def should_retry(error: WdsError) -> bool:
    """Whether a failed attempt is worth repeating: the one place that decides."""
    if isinstance(error, APIConnectionError):
        return True  # no answer (refused, dropped, timed out)
    if error.status == 408:
        return True  # the server timed the request out
    if error.status == 409:
        return True  # a conflict that a moment later may be gone
    if error.code == "quota_exceeded":
        return False  # the day's quota is spent until 00:00 UTC
    if error.status == 429:
        return True  # rate_limited: the minute window frees up
    if error.status == 501:
        return False  # not implemented: it will not be later either
    return error.status >= 500  # server and upstream failures are usually transient


def retry_delay_seconds(
    retry: int,
    error: WdsError,
    max_retry_after: float,
    rand: Callable[[], float] = random.random,
) -> Optional[float]:
    """Seconds before retry number ``retry`` (0-based), or None to give up.

    Retry-After when the service sent it (for ``rate_limited`` even beyond 8 s, up to
    ``max_retry_after``), else ``min(0.5·2^retry, 8)`` less up to 25 % of jitter.
    """
    retry_after = error.retry_after_seconds
    if retry_after is not None and retry_after >= 0:
        ceiling = max_retry_after if error.code == "rate_limited" else MAX_RETRY_DELAY_SECONDS
        return retry_after if retry_after <= ceiling else None
    backoff = min(INITIAL_RETRY_DELAY_SECONDS * 2**retry, MAX_RETRY_DELAY_SECONDS)
    return backoff * (1 - 0.25 * rand())


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After as seconds: a number, or an HTTP date."""
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        at = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))
