"""Two concurrent confirms of one recovery code, against the moto server: exactly one wins."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from fileapi.account.keys import KeyService
from fileapi.account.mailer import OutboxMailer
from fileapi.errors import InvalidInput
from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore

pytestmark = pytest.mark.server


def test_a_code_is_used_exactly_once_under_concurrency(server_store: AccountStore, tmp_path: Path) -> None:
    service = KeyService(server_store, OutboxMailer("no-reply@example.com", tmp_path))
    create_key(server_store, email="race@example.com", plan="pro")
    service.start_recovery("race@example.com", source="s")
    (mail,) = tmp_path.glob("*.eml")
    code = re.search(rb"\b(\d{8})\b", mail.read_bytes()).group(1).decode()  # type: ignore[union-attr]

    def confirm(_: int) -> str:
        try:
            return service.confirm_recovery("race@example.com", code, source=f"s{_}")
        except InvalidInput:
            return "refused"

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(confirm, range(8)))
    keys = [result for result in results if result != "refused"]
    assert len(keys) == 1 and keys[0].startswith("sk_live_")
