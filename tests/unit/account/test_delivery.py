"""Key deliveries over both store implementations: stored with the key, sent, retried, never dropped."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fileapi.account.delivery import KeyDelivery
from fileapi.account.mailer import OutboxMailer
from fileapi.errors import ServiceUnavailable
from fileapi.local.deliveries import send_pending_deliveries
from fileapi.metering.admin import issue_key
from fileapi.metering.storage import AccountStore, PendingDelivery
from fileapi.settings import get_settings


def test_a_key_is_stored_with_its_pending_delivery(store: AccountStore) -> None:
    account, key = issue_key(store, email="Buyer@Example.com", plan="pro", customer_id="cus_d1", deliver=True)
    assert store.pending_delivery(account.account_id) == PendingDelivery(
        account.account_id, "buyer@example.com", "pro", key, 0
    )
    assert store.list_pending_deliveries() == [store.pending_delivery(account.account_id)]


def test_a_failed_send_is_counted_reported_and_kept(store: AccountStore, tmp_path: Path) -> None:
    account, key = issue_key(store, email="b@example.com", plan="pro", deliver=True)
    blocked = tmp_path / "outbox"
    blocked.write_bytes(b"")  # a file where the folder should be: every send fails
    reported: list[int] = []
    delivery = KeyDelivery(store, OutboxMailer("from@example.com", blocked), on_failure=reported.append)
    for _ in range(2):
        with pytest.raises(ServiceUnavailable, match="stays pending"):
            delivery.finish(account.account_id)
    assert reported == [1, 2]
    pending = store.pending_delivery(account.account_id)
    assert pending is not None and (pending.key, pending.attempts) == (key, 2)


def test_a_sent_delivery_forgets_the_key(store: AccountStore, tmp_path: Path) -> None:
    account, key = issue_key(store, email="c@example.com", plan="pro", deliver=True)
    delivery = KeyDelivery(store, OutboxMailer("from@example.com", tmp_path), on_failure=lambda _: None)
    assert delivery.finish(account.account_id) is True
    assert store.pending_delivery(account.account_id) is None
    assert store.list_pending_deliveries() == []
    assert delivery.finish(account.account_id) is False  # nothing more to send
    (mail,) = tmp_path.glob("*.eml")
    assert key in mail.read_text()


def test_the_deliver_command_sends_what_is_pending(
    store: AccountStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    issue_key(store, email="d1@example.com", plan="pro", deliver=True)
    issue_key(store, email="d2@example.com", plan="pro", deliver=True)
    settings = dataclasses.replace(get_settings(), mailer="outbox", outbox_dir=tmp_path)
    assert send_pending_deliveries(store, settings) == 0
    assert capsys.readouterr().out == "2 sent, 0 still pending\n"
    assert len(list(tmp_path.glob("*.eml"))) == 2
    assert store.list_pending_deliveries() == []
