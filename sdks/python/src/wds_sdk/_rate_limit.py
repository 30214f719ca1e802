from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional


@dataclass(frozen=True)
class RateLimitWindow:
    """One window of the IETF RateLimit headers, e.g. ``"minute";q=1000;w=60`` with ``"minute";r=998;t=12``."""

    name: str
    quota: Optional[int]
    window_seconds: Optional[int]
    remaining: Optional[int]
    reset_seconds: Optional[int]


@dataclass(frozen=True)
class RateLimit:
    """The rate-limit state reported with an answer (all the account's keys together)."""

    limit: Optional[int]
    remaining: Optional[int]
    reset_seconds: Optional[int]
    windows: list[RateLimitWindow] = field(default_factory=list)


def _int(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value is not None and value.strip() != "" else None
    except ValueError:
        return None


def _structured_list(header: Optional[str]) -> dict[str, dict[str, str]]:
    items: dict[str, dict[str, str]] = {}
    for item in (header or "").split(","):
        name, *params = [part.strip() for part in item.split(";")]
        name = name.strip('"')
        if name:
            items[name] = dict(p.split("=", 1) for p in params if "=" in p)
    return items


def parse_rate_limit(headers: Mapping[str, str]) -> Optional[RateLimit]:
    """The rate-limit headers of an answer; None when it carries none (e.g. the portal)."""
    policies = _structured_list(headers.get("ratelimit-policy"))
    states = _structured_list(headers.get("ratelimit"))
    limit = _int(headers.get("x-ratelimit-limit"))
    if limit is None and not policies and not states:
        return None
    names = list(dict.fromkeys([*policies, *states]))
    return RateLimit(
        limit=limit,
        remaining=_int(headers.get("x-ratelimit-remaining")),
        reset_seconds=_int(headers.get("x-ratelimit-reset")),
        windows=[
            RateLimitWindow(
                name=name,
                quota=_int(policies.get(name, {}).get("q")),
                window_seconds=_int(policies.get(name, {}).get("w")),
                remaining=_int(states.get(name, {}).get("r")),
                reset_seconds=_int(states.get(name, {}).get("t")),
            )
            for name in names
        ],
    )
