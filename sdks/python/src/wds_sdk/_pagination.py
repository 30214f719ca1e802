from __future__ import annotations

from typing import TYPE_CHECKING, AsyncIterator, Awaitable, Callable, Generic, Iterator, Optional, TypeVar

if TYPE_CHECKING:
    from .models import _TransferListBase

Item = TypeVar("Item")
P = TypeVar("P", bound="_TransferListBase")


def next_cursor(page: "_TransferListBase") -> Optional[str]:
    """The cursor of the page after ``page``; None when ``page`` is the last."""
    return page.cursor if page.has_more else None


def items_of(page: "_TransferListBase") -> list:
    """A page's items: its ``transfers``, or its ``transactions`` for ``wallets.transactions``."""
    return getattr(page, page._items)


def wants_more(count: int, max_items: Optional[int]) -> bool:
    """Whether ``auto_paging_iter(max_items)`` goes on after ``count`` records."""
    return max_items is None or count < max_items


class SyncPager(Generic[Item]):
    """Follows ``cursor`` from a first page until ``has_more`` is false."""

    def __init__(self, first: "_TransferListBase", fetch: Callable[[str], "_TransferListBase"]) -> None:
        self._first = first
        self._fetch = fetch

    def pages(self) -> Iterator["_TransferListBase"]:
        page = self._first
        yield page
        while (cursor := next_cursor(page)) is not None:
            page = self._fetch(cursor)
            yield page

    def items(self, max_items: Optional[int] = None) -> Iterator[Item]:
        count = 0
        if not wants_more(count, max_items):
            return
        for page in self.pages():
            for item in items_of(page):
                yield item
                count += 1
                if not wants_more(count, max_items):
                    return


class AsyncPageRequest(Generic[Item]):
    """The answer of an async list call: ``await`` it for the first page, or iterate over every record::

        async for transfer in client.wallets.transfers(address).auto_paging_iter():
            print(transfer.value)
    """

    def __init__(self, fetch: Callable[[Optional[str]], Awaitable["_TransferListBase"]], cursor: Optional[str]) -> None:
        self._fetch = fetch
        self._cursor = cursor

    def __await__(self):
        return self._fetch(self._cursor).__await__()

    async def pages(self) -> AsyncIterator["_TransferListBase"]:
        page = await self._fetch(self._cursor)
        yield page
        while (cursor := next_cursor(page)) is not None:
            page = await self._fetch(cursor)
            yield page

    async def auto_paging_iter(self, max_items: Optional[int] = None) -> AsyncIterator[Item]:
        """Every record, newest first, each once; at most ``max_items``."""
        count = 0
        if not wants_more(count, max_items):
            return
        async for page in self.pages():
            for item in items_of(page):
                yield item
                count += 1
                if not wants_more(count, max_items):
                    return

    def __aiter__(self) -> AsyncIterator[Item]:
        return self.auto_paging_iter()
