"""Concurrent deliveries of one Stripe event against the moto server: one key, one e-mail."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from fileapi.account.billing import BillingEvents
from fileapi.account.mailer import OutboxMailer
from fileapi.metering.storage import AccountStore
from tests.stripe_events import SECRET, checkout_completed, signed

pytestmark = pytest.mark.server


def test_concurrent_deliveries_issue_one_key(server_store: AccountStore, tmp_path: Path) -> None:
    events = BillingEvents(server_store, OutboxMailer("billing@example.com", tmp_path), lambda: SECRET)
    body, signature = signed(checkout_completed("race-buyer@example.com"))
    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(lambda _: events.handle(body, signature), range(8)))
    assert sorted(outcomes) == ["duplicate"] * 7 + ["key issued"]
    assert len(list(tmp_path.glob("*.eml"))) == 1
