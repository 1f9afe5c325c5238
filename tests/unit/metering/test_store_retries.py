"""The DynamoDB call policy: what is retried, what is ambiguous, and account writes that survive a lost reply."""

from __future__ import annotations

import time
from typing import Any

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError

from fileapi.metering.accounts import Account, Limits
from fileapi.metering.dynamo.account_store import DynamoAccountStore
from fileapi.metering.keys import hash_key, key_from_random
from fileapi.metering.storage import Ambiguous, CodeRejected, RecoveryCode, StoreUnavailable
from fileapi.storage.table import DynamoTable

LIMITS = Limits(quota_monthly=10_000, sustained_per_second=5, burst=15)


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


class FailingClient:
    """A client whose every call fails with `error`."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        def fail(**_: Any) -> Any:
            self.calls += 1
            raise self.error

        return fail


def losing(table: DynamoTable, operation: str) -> DynamoAccountStore:
    client = LosesFirstAnswer(table.client, operation)
    return DynamoAccountStore(DynamoTable(table.table_name, client, sleep=lambda _: None))  # type: ignore[arg-type]


def account(email: str = "a@example.com", key: str = key_from_random("a" * 43)) -> Account:
    return Account(
        account_id=email.split("@")[0] + "-id", email=email, plan="pro", status="active", key_hash=hash_key(key)
    )


def test_create_account_survives_a_lost_answer(dynamo_table: DynamoTable) -> None:
    losing(dynamo_table, "transact_write_items").create_account(account(), LIMITS)
    assert DynamoAccountStore(dynamo_table).get_account_by_email("a@example.com") is not None


def test_replace_key_survives_a_lost_answer(dynamo_table: DynamoTable) -> None:
    store = DynamoAccountStore(dynamo_table)
    store.create_account(account(), LIMITS)
    new_hash = hash_key(key_from_random("b" * 43))
    rotated = losing(dynamo_table, "transact_write_items").replace_key(account(), new_hash)
    assert rotated.key_hash == new_hash
    assert store.get_account_by_key(new_hash) is not None
    assert store.get_account_by_key(account().key_hash) is None


def test_use_recovery_code_survives_a_lost_answer(dynamo_table: DynamoTable) -> None:
    store = DynamoAccountStore(dynamo_table)
    store.add_recovery_code("a@example.com", RecoveryCode("h", "acct", 2_000_000_000), expires_at=2_000_000_000)
    losing(dynamo_table, "update_item").use_recovery_code("a@example.com", "h", now=1_000)
    with pytest.raises(CodeRejected):
        store.use_recovery_code("a@example.com", "h", now=1_000)  # still single use


def test_claim_event_survives_a_lost_answer(dynamo_table: DynamoTable) -> None:
    assert losing(dynamo_table, "put_item").claim_event("evt_1", expires_at=2_000_000_000) is True
    assert DynamoAccountStore(dynamo_table).claim_event("evt_1", expires_at=2_000_000_000) is False


NOT_APPLIED = [
    ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow"}}, "UpdateItem"),
    ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow"}}, "UpdateItem"),
    EndpointConnectionError(endpoint_url="http://127.0.0.1:9"),
    ConnectTimeoutError(endpoint_url="http://10.255.255.1"),
]
UNKNOWN_OUTCOME = [
    ReadTimeoutError(endpoint_url="http://dynamodb"),
    ClientError({"Error": {"Code": "InternalServerError", "Message": "?"}}, "UpdateItem"),
]


@pytest.mark.parametrize("error", NOT_APPLIED, ids=type)
def test_what_did_not_apply_is_retried_then_unavailable(error: Exception) -> None:
    client = FailingClient(error)
    table = DynamoTable("t", client, attempts=3, sleep=lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailable):
        table.call(lambda: client.update_item(), idempotent=False)
    assert client.calls == 3


@pytest.mark.parametrize("error", UNKNOWN_OUTCOME, ids=type)
def test_a_write_of_unknown_outcome_is_never_retried(error: Exception) -> None:
    client = FailingClient(error)
    table = DynamoTable("t", client, attempts=3, sleep=lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(Ambiguous):
        table.call(lambda: client.update_item(), idempotent=False)
    assert client.calls == 1


@pytest.mark.parametrize("error", UNKNOWN_OUTCOME, ids=type)
def test_a_read_of_unknown_outcome_is_retried(error: Exception) -> None:
    client = FailingClient(error)
    table = DynamoTable("t", client, attempts=3, sleep=lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailable):
        table.get("a", "b")
    assert client.calls == 3


def test_non_retryable_client_errors_pass_through_at_once() -> None:
    client = FailingClient(ClientError({"Error": {"Code": "ValidationException", "Message": "x"}}, "GetItem"))
    table = DynamoTable("t", client, attempts=3, sleep=lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(ClientError):
        table.get("a", "b")
    assert client.calls == 1


def test_retries_stop_when_one_more_attempt_could_pass_the_budget() -> None:
    class SlowFailure(FailingClient):
        def __getattr__(self, name: str) -> Any:
            def fail(**_: Any) -> Any:
                self.calls += 1
                time.sleep(0.3)
                raise self.error

            return fail

    client = SlowFailure(EndpointConnectionError(endpoint_url="http://127.0.0.1:9"))
    table = DynamoTable("t", client, attempts=10, budget_seconds=1.5)  # type: ignore[arg-type]
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        table.get("a", "b")
    # each attempt may take up to 0.9 s (connect + read timeouts): a second one starts only before 0.6 s
    assert client.calls == 2 and time.monotonic() - started < 1.5
