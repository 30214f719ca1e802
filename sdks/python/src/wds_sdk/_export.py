"""Exports: a wallet's history as a tax tool's CSV file, streamed to a file path or a binary writer as it
comes (constant memory, whatever its length). An error answer (application/problem+json) raises its class."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import IO, AsyncIterator, Iterator, Literal, Optional, Union

import httpx

from ._core import PreparedRequest, RequestSpec, Settings, prepare, read_response
from ._rate_limit import parse_rate_limit
from .models import ResponseInfo

ExportFormat = Literal["koinly", "cointracking", "cointracker", "cryptotaxcalculator", "taxbit", "zenledger", "tokentax", "wds"]
Destination = Union[str, "os.PathLike[str]", IO[bytes]]
"""A file path (created or truncated) or a binary writer (left open)."""


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: its bytes, the file name the service gave it, and the answer's info."""

    bytes: int
    file_name: Optional[str]
    response: ResponseInfo


def prepare_export(settings: Settings, spec: RequestSpec) -> PreparedRequest:
    request = prepare(settings, spec)
    request.headers["accept"] = "text/csv, application/problem+json"
    return request


def info_of(response: httpx.Response) -> ResponseInfo:
    return ResponseInfo(
        status=response.status_code,
        request_id=response.headers.get("x-request-id"),
        rate_limit=parse_rate_limit(response.headers),
    )


def file_name_of(response: httpx.Response) -> Optional[str]:
    found = re.search(r'filename="([^"]+)"', response.headers.get("content-disposition", ""))
    return found.group(1) if found else None


def open_destination(destination: Destination) -> tuple[IO[bytes], bool]:
    """The writer and whether it is ours to close (a path opened here)."""
    if isinstance(destination, (str, os.PathLike)):
        return open(destination, "wb"), True
    return destination, False


def write_all(chunks: Iterator[bytes], destination: Destination) -> int:
    writer, owned = open_destination(destination)
    written = 0
    try:
        for chunk in chunks:
            writer.write(chunk)
            written += len(chunk)
    finally:
        if owned:
            writer.close()
    return written


async def write_all_async(chunks: AsyncIterator[bytes], destination: Destination) -> int:
    writer, owned = open_destination(destination)
    written = 0
    try:
        async for chunk in chunks:
            writer.write(chunk)
            written += len(chunk)
    finally:
        if owned:
            writer.close()
    return written


def raise_problem(response: httpx.Response) -> None:
    """Raises the WdsError of an error answer whose body has been read; nothing for a 2xx."""
    if not response.is_success:
        read_response(response)
