"""The coordinates scripts/sdk-harness.ts gives the suite, and the fault proxy's controls."""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
from typing import Any


def _required(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run the suite through scripts/test-sdks.sh")
    return value


BASE_URL = _required("WDS_BASE_URL")
API_KEY = _required("WDS_API_KEY")
WALLET = _required("WDS_TEST_WALLET")
TOKEN = _required("WDS_TEST_TOKEN")
NFT = _required("WDS_TEST_NFT")
MIN_RECORDS = int(_required("WDS_TEST_MIN_RECORDS"))
QUOTA_KEY = _required("WDS_TEST_QUOTA_KEY")
PROXY_URL = _required("WDS_TEST_PROXY_URL")
PROXY_CONTROL_URL = _required("WDS_TEST_PROXY_CONTROL_URL")
SERVICE_LOG = _required("WDS_TEST_SERVICE_LOG")


def queue_faults(faults: list[dict[str, Any]]) -> None:
    """Queues faults for the next requests through the proxy (and clears its log)."""
    request = urllib.request.Request(f"{PROXY_CONTROL_URL}/faults", data=json.dumps(faults).encode(), method="POST")
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 204


def seen_by_proxy() -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{PROXY_CONTROL_URL}/log") as answer:
        return json.load(answer)


def gaps_ms(seen: list[dict[str, Any]]) -> list[float]:
    return [b["atMs"] - a["atMs"] for a, b in zip(seen, seen[1:])]


def raw_get(path: str, key: str = API_KEY) -> Any:
    request = urllib.request.Request(BASE_URL + path, headers={"X-API-Key": key})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def mailed_code(email: str) -> str:
    """The one-time code the service "mailed" to ``email`` (no SMTP_URL: it is in the log).

    The log line may reach the file a little after the answer: the log is read until it is there (5 s at most).
    """
    for _ in range(50):
        code = _find_mailed_code(email)
        if code is not None:
            return code
        time.sleep(0.1)
    raise AssertionError(f"no code was mailed to {email}")


def _find_mailed_code(email: str) -> str | None:
    with open(SERVICE_LOG, encoding="utf-8") as log:
        lines = log.read().splitlines()
    for line in reversed(lines):
        if email not in line:
            continue
        entry = json.loads(line)
        match = re.search(r"\b(\d{6})\b", entry.get("text", "")) if entry.get("mail_to") == email else None
        if match:
            return match.group(1)
    return None
