from __future__ import annotations

import asyncio
import time
from typing import Any, Optional, TypeVar

import httpx

from ._core import (
    DEFAULT_MAX_RETRIES,
    next_delay,
    connection_error,
    DEFAULT_MAX_RETRY_AFTER_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    Outcome,
    Pause,
    RequestSpec,
    Settings,
    exchange,
    list_spec,
    resolve_settings,
)
from ._errors import WdsError
from ._export import (
    Destination,
    ExportResult,
    file_name_of,
    info_of,
    prepare_export,
    raise_problem,
    write_all,
    write_all_async,
)
from ._pagination import AsyncPageRequest, SyncPager
from ._resources import Developer, Fx, Prices, Status, Wallets
from .models import Model

M = TypeVar("M", bound=Model)


class _Transport:
    _settings: Settings

    def _request(self, spec: RequestSpec, model: type[M]) -> Any:
        raise NotImplementedError

    def _list(self, path: str, query: dict[str, Any], cursor: Optional[str], model: type[M]) -> Any:
        raise NotImplementedError

    def _stream(self, spec: RequestSpec, destination: Destination) -> Any:
        raise NotImplementedError


class _ClientBase(_Transport):
    def _init(self, settings: Settings) -> None:
        self._settings = settings
        self.wallets = Wallets(self)
        self.status = Status(self)
        self.fx = Fx(self)
        self.prices = Prices(self)
        self.developer = Developer(self)

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    def _options(self, **options: Any) -> dict[str, Any]:
        """This client's options with ``options`` over them: what ``with_options`` builds the new client from."""
        s = self._settings
        given = dict(api_key=s.api_key, base_url=s.base_url, token=s.token, max_retries=s.max_retries, timeout=s.timeout,
                     max_retry_after=s.max_retry_after)  # fmt: skip
        return {**given, **options}

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(base_url={self._settings.base_url!r})"


class Client(_ClientBase):
    """The WDS client. Key and base URL from the arguments or WDS_API_KEY / WDS_BASE_URL; the key is
    sent only in the X-API-Key header::

        client = Client()
        for t in client.wallets.transfers("0xabc…", chain="ethereum").auto_paging_iter():
            print(t.tx_hash, t.value)
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER_SECONDS,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        settings = resolve_settings(
            api_key=api_key, base_url=base_url, token=token, max_retries=max_retries, timeout=timeout, max_retry_after=max_retry_after
        )
        self._init(settings)
        self._http = http_client or httpx.Client(timeout=timeout)

    def with_options(self, **options: Any) -> "Client":
        """The same client (sharing its connections) with other options, e.g. ``max_retries=0``."""
        return Client(**self._options(**options), http_client=self._http)

    def with_token(self, token: str) -> "Client":
        """The same client with a portal session token (``developer.login(...).token``)."""
        return self.with_options(token=token)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def _request(self, spec: RequestSpec, model: type[M]) -> M:
        steps = exchange(self._settings, spec, model)
        outcome: Outcome = None
        while True:
            try:
                step = steps.send(outcome)
            except StopIteration as done:
                return done.value
            if isinstance(step, Pause):
                time.sleep(step.seconds)
                outcome = None
                continue
            try:
                outcome = self._http.request(
                    step.method, step.url, params=step.params, headers=step.headers, content=step.content, timeout=step.timeout
                )
            except httpx.TransportError as error:
                outcome = error

    def _stream(self, spec: RequestSpec, destination: Destination) -> ExportResult:
        """Writes a streamed answer to ``destination``; retried like any call until the answer starts."""
        request = prepare_export(self._settings, spec)
        retry, started = 0, False
        while True:
            try:
                with self._http.stream(
                    request.method, request.url, params=request.params, headers=request.headers, timeout=request.timeout
                ) as response:
                    if not response.is_success:
                        response.read()
                        raise_problem(response)
                    started = True
                    written = write_all(response.iter_bytes(), destination)
                    return ExportResult(bytes=written, file_name=file_name_of(response), response=info_of(response))
            except httpx.TransportError as error:
                failure: WdsError = connection_error(error, self._settings.timeout)
            except WdsError as error:
                failure = error
            # once bytes are written, a retry would write them again
            delay = None if started else next_delay(self._settings, spec, retry, failure)
            if delay is None:
                raise failure
            time.sleep(delay)
            retry += 1

    def _list(self, path: str, query: dict[str, Any], cursor: Optional[str], model: type[M]) -> M:
        def fetch(page_cursor: Optional[str]) -> M:
            page = self._request(list_spec(path, query, page_cursor), model)
            page._pager = pager  # type: ignore[attr-defined]
            return page

        first: Any = None
        pager = SyncPager(None, fetch)  # type: ignore[arg-type]
        first = fetch(cursor)
        pager._first = first
        return first


class AsyncClient(_ClientBase):
    """The asyncio client; the same surface as Client, every call awaited::

        async with AsyncClient() as client:
            async for t in client.wallets.transfers("0xabc…", chain="ethereum").auto_paging_iter():
                print(t.tx_hash, t.value)
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER_SECONDS,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        settings = resolve_settings(
            api_key=api_key, base_url=base_url, token=token, max_retries=max_retries, timeout=timeout, max_retry_after=max_retry_after
        )
        self._init(settings)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    def with_options(self, **options: Any) -> "AsyncClient":
        return AsyncClient(**self._options(**options), http_client=self._http)

    def with_token(self, token: str) -> "AsyncClient":
        return self.with_options(token=token)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.aclose()

    async def _request(self, spec: RequestSpec, model: type[M]) -> M:
        steps = exchange(self._settings, spec, model)
        outcome: Outcome = None
        while True:
            try:
                step = steps.send(outcome)
            except StopIteration as done:
                return done.value
            if isinstance(step, Pause):
                await asyncio.sleep(step.seconds)
                outcome = None
                continue
            try:
                outcome = await self._http.request(
                    step.method, step.url, params=step.params, headers=step.headers, content=step.content, timeout=step.timeout
                )
            except httpx.TransportError as error:
                outcome = error

    async def _stream(self, spec: RequestSpec, destination: Destination) -> ExportResult:
        request = prepare_export(self._settings, spec)
        retry, started = 0, False
        while True:
            try:
                async with self._http.stream(
                    request.method, request.url, params=request.params, headers=request.headers, timeout=request.timeout
                ) as response:
                    if not response.is_success:
                        await response.aread()
                        raise_problem(response)
                    started = True
                    written = await write_all_async(response.aiter_bytes(), destination)
                    return ExportResult(bytes=written, file_name=file_name_of(response), response=info_of(response))
            except httpx.TransportError as error:
                failure: WdsError = connection_error(error, self._settings.timeout)
            except WdsError as error:
                failure = error
            delay = None if started else next_delay(self._settings, spec, retry, failure)
            if delay is None:
                raise failure
            await asyncio.sleep(delay)
            retry += 1

    def _list(self, path: str, query: dict[str, Any], cursor: Optional[str], model: type[M]) -> AsyncPageRequest[Any]:
        async def fetch(page_cursor: Optional[str]) -> M:
            page = await self._request(list_spec(path, query, page_cursor), model)
            page._pager = AsyncPageRequest(fetch, page_cursor)  # type: ignore[attr-defined]
            return page

        return AsyncPageRequest(fetch, cursor)
