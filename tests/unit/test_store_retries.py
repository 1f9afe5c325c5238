"""A call whose answer is lost after DynamoDB applied it is retried: the retry must not fail or repeat it."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError

from fileapi.metering.accounts import Account
from fileapi.metering.dynamodb import DynamoStore
from fileapi.metering.keys import hash_key


class LosesFirstAnswer:
    """Wraps a client: the first call of `operation` is carried out, then its answer is lost."""

    def __init__(self, client: Any, operation: str) -> None:
        self.client = client
        self.operation = operation
        self.lost = False

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.client, name)
        if name != self.operation:
            return real

        def call(**kwargs: Any) -> Any:
            result = real(**kwargs)
            if not self.lost:
                self.lost = True
                raise ReadTimeoutError(endpoint_url="http://dynamodb")
            return result

        return call


def losing(store: DynamoStore, operation: str) -> DynamoStore:
    return DynamoStore(store.table_name, LosesFirstAnswer(store.client, operation), sleep=lambda _: None)  # type: ignore[arg-type]


def account(email: str = "a@example.com", key: str = "sk_live_" + "a" * 43) -> Account:
    return Account(
        account_id=email.split("@")[0] + "-id", email=email, plan="pro", status="active", key_hash=hash_key(key)
    )


def test_create_account_survives_a_lost_answer(store: DynamoStore) -> None:
    losing(store, "transact_write_items").create_account(account())
    assert store.get_account_by_email("a@example.com") is not None


def test_replace_key_survives_a_lost_answer(store: DynamoStore) -> None:
    store.create_account(account())
    new_hash = hash_key("sk_live_" + "b" * 43)
    rotated = losing(store, "transact_write_items").replace_key(account(), new_hash)
    assert rotated.key_hash == new_hash
    assert store.get_account_by_key(new_hash) is not None


def test_use_recovery_code_survives_a_lost_answer(store: DynamoStore) -> None:
    store.put_recovery_code("a@example.com", "h", expires_at=2_000_000_000)
    losing(store, "update_item").use_recovery_code("a@example.com", "h", now=1_000, max_tries=5)
    from fileapi.metering.store import CodeRejected

    with pytest.raises(CodeRejected):
        store.use_recovery_code("a@example.com", "h", now=1_000, max_tries=5)  # still single use


def test_claim_event_survives_a_lost_answer(store: DynamoStore) -> None:
    assert losing(store, "put_item").claim_event("evt_1", expires_at=2_000_000_000) is True
    assert store.claim_event("evt_1", expires_at=2_000_000_000) is False
