"""A call without its I/O: configuration, the request (the key in X-API-Key), the answer or its error,
and the retries between, as steps that Client (blocking) and AsyncClient (awaiting) both drive."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Generator, Literal, Optional, TypeVar, Union

import httpx

from ._errors import APIConnectionError, APITimeoutError, WdsError, create_api_error
from ._rate_limit import parse_rate_limit
from ._retry import parse_retry_after, retry_delay_seconds, should_retry
from .models import Model, ResponseInfo

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_MAX_RETRIES = 2
DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_MAX_RETRY_AFTER_SECONDS = 60.0

Query = dict[str, Any]
M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class RequestSpec:
    method: Literal["GET", "POST", "DELETE"]
    path: str
    query: Optional[Query] = None
    body: Any = None
    auth: Literal["key", "token", "none"] = "key"
    idempotent: bool = True
    """Whether repeating the request is harmless; only then is it retried."""


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: Optional[str]
    token: Optional[str]
    max_retries: int
    timeout: float
    max_retry_after: float

    def __repr__(self) -> str:  # the key and token never reach a log through repr()
        return f"Settings(base_url={self.base_url!r}, max_retries={self.max_retries}, timeout={self.timeout})"


def resolve_settings(
    *,
    api_key: Optional[str],
    base_url: Optional[str],
    token: Optional[str],
    max_retries: int,
    timeout: float,
    max_retry_after: float,
) -> Settings:
    return Settings(
        base_url=(base_url or os.environ.get("WDS_BASE_URL") or DEFAULT_BASE_URL).rstrip("/"),
        api_key=api_key or os.environ.get("WDS_API_KEY") or None,
        token=token,
        max_retries=max_retries,
        timeout=timeout,
        max_retry_after=max_retry_after,
    )


def clean_query(query: Optional[Query]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in (query or {}).items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif hasattr(value, "isoformat"):
            out[name] = value.isoformat()[:10]
        else:
            out[name] = str(value)
    return out


def headers_for(settings: Settings, spec: RequestSpec) -> dict[str, str]:
    headers = {"accept": "application/json"}
    if spec.auth == "key" and settings.api_key:
        headers["x-api-key"] = settings.api_key
    if spec.auth == "token" and settings.token:
        headers["authorization"] = f"Bearer {settings.token}"
    if spec.body is not None:
        headers["content-type"] = "application/json"
    return headers


def body_of(spec: RequestSpec) -> Optional[bytes]:
    return None if spec.body is None else json.dumps(spec.body).encode()


def list_spec(path: str, query: Query, cursor: Optional[str]) -> RequestSpec:
    """The request of one page of a list: its query and the cursor of the page (None: the first)."""
    return RequestSpec("GET", path, {**query, "cursor": cursor})


@dataclass(frozen=True)
class PreparedRequest:
    """What to send, in httpx's terms: ``http.request(method, url, params=…, headers=…, content=…, timeout=…)``."""

    method: str
    url: str
    params: dict[str, str]
    headers: dict[str, str]
    content: Optional[bytes]
    timeout: float


@dataclass(frozen=True)
class Pause:
    """Wait this long before the next attempt."""

    seconds: float


def prepare(settings: Settings, spec: RequestSpec) -> PreparedRequest:
    return PreparedRequest(
        method=spec.method,
        url=settings.base_url + spec.path,
        params=clean_query(spec.query),
        headers=headers_for(settings, spec),
        content=body_of(spec),
        timeout=settings.timeout,
    )


Outcome = Union[httpx.Response, httpx.TransportError, None]
"""What the driver sends back: the answer to a PreparedRequest or the transport error it raised; None after a Pause."""


def exchange(settings: Settings, spec: RequestSpec, model: type[M]) -> Generator[Union[PreparedRequest, Pause], Outcome, M]:
    """One call as steps: yields the request to send and the pauses between attempts, returns the
    answer as ``model`` (with its ResponseInfo), or raises its WdsError once no retry is left."""
    request = prepare(settings, spec)
    retry = 0
    while True:
        outcome = yield request
        try:
            if isinstance(outcome, httpx.TransportError):
                raise connection_error(outcome, settings.timeout)
            if outcome is None:
                raise TypeError("exchange() expects the answer to the request it yielded")
            data, info = read_response(outcome)
        except WdsError as error:
            delay = next_delay(settings, spec, retry, error)
            if delay is None:
                raise
            yield Pause(delay)
            retry += 1
            continue
        result = model.from_dict(data)
        result.response = info
        return result


def connection_error(error: Exception, timeout: float) -> WdsError:
    if isinstance(error, httpx.TimeoutException):
        return APITimeoutError(status=0, code="timeout", detail=f"no answer within {timeout} s")
    return APIConnectionError(status=0, code="connection_error", detail="the connection failed before an answer came")


def read_response(response: httpx.Response) -> tuple[Any, ResponseInfo]:
    """The JSON body and ResponseInfo of an answer; raises the WdsError of a problem answer."""
    info = ResponseInfo(
        status=response.status_code,
        request_id=response.headers.get("x-request-id"),
        rate_limit=parse_rate_limit(response.headers),
    )
    if response.is_success:
        return (response.json() if response.content else {}), info
    problem: Optional[dict[str, Any]] = None
    try:
        parsed = response.json()
        if isinstance(parsed, dict) and isinstance(parsed.get("code"), str):
            problem = parsed
    except ValueError:
        pass
    raise create_api_error(
        status=response.status_code,
        code=problem["code"] if problem else f"http_{response.status_code}",
        detail=problem.get("detail", "") if problem else (response.text[:200] or response.reason_phrase),
        param=problem.get("param") if problem else None,
        request_id=(problem.get("requestId") if problem else None) or info.request_id,
        rate_limit=info.rate_limit,
        retry_after_seconds=parse_retry_after(response.headers.get("retry-after")),
        problem=problem,
    )


def next_delay(settings: Settings, spec: RequestSpec, retry: int, error: WdsError) -> Optional[float]:
    """Seconds to wait before the next attempt, or None to raise ``error``."""
    max_retries = settings.max_retries if spec.idempotent else 0
    if retry >= max_retries or not should_retry(error):
        return None
    return retry_delay_seconds(retry, error, settings.max_retry_after)
