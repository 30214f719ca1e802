"""The Python SDK's iterator vs raw httpx pages; prints {"raw": [...], "sdk": [...]} (see bench/sdk.ts)."""

import json
import os
import sys
import time

import httpx

from wds_sdk import Client

limit, rounds = int(sys.argv[1]), int(sys.argv[2])
base_url, api_key, wallet = os.environ["WDS_BASE_URL"], os.environ["WDS_API_KEY"], os.environ["WDS_TEST_WALLET"]


def raw_walk(http: httpx.Client) -> dict:
    started = time.perf_counter()
    records = pages = 0
    cursor = None
    while True:
        params = {"chain": "ethereum", "limit": limit, **({"cursor": cursor} if cursor else {})}
        body = http.get(f"{base_url}/v1/wallets/{wallet}/transfers", params=params, headers={"X-API-Key": api_key}).json()
        records += len(body["transfers"])
        pages += 1
        if not body["hasMore"]:
            break
        cursor = body["cursor"]
    return {"records": records, "pages": pages, "seconds": time.perf_counter() - started}


def sdk_walk(client: Client) -> dict:
    started = time.perf_counter()
    records = 0
    for _ in client.wallets.transfers(wallet, chain="ethereum", limit=limit).auto_paging_iter():
        records += 1
    return {"records": records, "pages": -(-records // limit), "seconds": time.perf_counter() - started}


with httpx.Client(timeout=60) as http, Client(api_key, base_url=base_url) as client:
    raw_walk(http)
    raw, sdk = [], []
    for round_ in range(rounds):
        if round_ % 2 == 0:
            raw.append(raw_walk(http))
            sdk.append(sdk_walk(client))
        else:
            sdk.append(sdk_walk(client))
            raw.append(raw_walk(http))
print(json.dumps({"raw": raw, "sdk": sdk}))
