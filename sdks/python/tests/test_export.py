"""wallets.export through the real service: the file it writes is the endpoint's answer byte for byte, to
a path or a binary writer, with Client and AsyncClient; a refusal (problem+json) raises its class."""

from __future__ import annotations

import asyncio
import io
import urllib.request

import pytest

from wds_sdk import AsyncClient, Client, ExportResult, InvalidParameterError

from . import harness as h

client = Client(h.API_KEY, base_url=h.BASE_URL)


def raw_export(query: str) -> bytes:
    request = urllib.request.Request(f"{h.BASE_URL}/v1/wallets/{h.WALLET}/export?{query}", headers={"X-API-Key": h.API_KEY})
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 200
        return answer.read()


def test_export_streams_to_a_file(tmp_path):
    path = tmp_path / "koinly.csv"
    result = client.wallets.export(h.WALLET, str(path), format="koinly", chain="ethereum")
    written = path.read_bytes()
    assert written == raw_export("format=koinly&chain=ethereum")
    assert written.count(b"\r\n") > 2
    assert isinstance(result, ExportResult)
    assert result.bytes == len(written)
    assert result.file_name == f"wds_koinly_{h.WALLET}_ethereum.csv"
    assert result.response.status == 200


def test_export_streams_to_a_writer_left_open():
    writer = io.BytesIO()
    client.wallets.export(h.WALLET, writer, format="wds", chain="ethereum", from_date="2020-01-01")
    assert not writer.closed
    assert writer.getvalue() == raw_export("format=wds&chain=ethereum&fromDate=2020-01-01")


def test_async_export_streams_the_same_file():
    async def run() -> bytes:
        async with AsyncClient(h.API_KEY, base_url=h.BASE_URL) as async_client:
            writer = io.BytesIO()
            await async_client.wallets.export(h.WALLET, writer, format="cointracking", chain="ethereum")
            return writer.getvalue()

    assert asyncio.run(run()) == raw_export("format=cointracking&chain=ethereum")


def test_a_problem_answer_raises_its_class():
    with pytest.raises(InvalidParameterError) as caught:
        client.wallets.export(h.WALLET, io.BytesIO(), format="excel")  # type: ignore[arg-type]
    assert caught.value.status == 400
    assert "format" in caught.value.detail
