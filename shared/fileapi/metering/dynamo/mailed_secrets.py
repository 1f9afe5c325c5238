"""What the account store keeps of the secrets it e-mails, on DynamoDB: key deliveries and recovery codes.

Items:
    DELIVERY#<account id> / DELIVERY   e-mail, plan, the key in clear (`secret`) until the message is sent,
                                       failed sends (`attempts`); no TTL: a pending delivery is never dropped
    RECOVERY#<address> / CODE#<sha256> the account it recovers, valid_until, used; deleted by TTL a day later
"""

from __future__ import annotations

import uuid
from typing import Any

from fileapi.metering.storage import CodeRejected, PendingDelivery, RecoveryCode
from fileapi.storage.table import ITEM_PRESENT, ConditionFailed, DynamoTable, int_attr, key_of, n, s, str_attr

DELIVERY_SK = "DELIVERY"
CODE_PREFIX = "CODE#"


def delivery_pk(account_id: str) -> str:
    return f"DELIVERY#{account_id}"


def recovery_pk(email: str) -> str:
    return f"RECOVERY#{email.lower()}"


def delivery_item(delivery: PendingDelivery) -> dict[str, Any]:
    """The item of a new pending delivery (written in the transaction that creates its key)."""
    return {
        **key_of(delivery_pk(delivery.account_id), DELIVERY_SK),
        "email": s(delivery.email.lower()),
        "plan": s(delivery.plan),
        "secret": s(delivery.key),
        "attempts": n(delivery.attempts),
    }


def _delivery(item: dict[str, Any]) -> PendingDelivery | None:
    if "secret" not in item:
        return None
    return PendingDelivery(
        account_id=item["pk"]["S"].removeprefix("DELIVERY#"),
        email=item["email"]["S"],
        plan=item["plan"]["S"],
        key=item["secret"]["S"],
        attempts=int_attr(item, "attempts", 0) or 0,
    )


class DynamoMailedItems:
    """The delivery and recovery-code primitives of `DynamoAccountStore` (see AccountStore for contracts)."""

    table: DynamoTable

    def pending_delivery(self, account_id: str) -> PendingDelivery | None:
        item = self.table.get(delivery_pk(account_id), DELIVERY_SK)
        return None if item is None else _delivery(item)

    def mark_delivered(self, account_id: str) -> None:
        try:
            self.table.conditional_update(
                key_of(delivery_pk(account_id), DELIVERY_SK),
                idempotent=True,
                UpdateExpression="REMOVE secret SET delivered = :true",
                ConditionExpression=ITEM_PRESENT,
                ExpressionAttributeValues={":true": {"BOOL": True}},
            )
        except ConditionFailed:
            return  # no delivery was stored for this account

    def note_delivery_failure(self, account_id: str) -> int:
        try:
            item = self.table.conditional_update(
                key_of(delivery_pk(account_id), DELIVERY_SK),
                idempotent=False,
                UpdateExpression="ADD attempts :one",
                ConditionExpression=f"{ITEM_PRESENT} AND attribute_exists(secret)",
                ExpressionAttributeValues={":one": n(1)},
            )
        except ConditionFailed:
            return 0
        return int_attr(item, "attempts", 0) or 0

    def list_pending_deliveries(self, *, limit: int = 1000) -> list[PendingDelivery]:
        items = self.table.scan(
            limit=limit,
            FilterExpression="sk = :delivery AND attribute_exists(secret)",
            ExpressionAttributeValues={":delivery": s(DELIVERY_SK)},
        )
        return [delivery for delivery in map(_delivery, items) if delivery is not None]

    def add_recovery_code(self, email: str, code: RecoveryCode, *, expires_at: int) -> None:
        item: dict[str, Any] = {
            **key_of(recovery_pk(email), CODE_PREFIX + code.code_hash),
            "valid_until": n(code.valid_until),
            "expires_at": n(expires_at),
        }
        if code.account_id is not None:
            item["account_id"] = s(code.account_id)
        self.table.call(lambda: self.table.client.put_item(TableName=self.table.table_name, Item=item), idempotent=True)

    def recovery_codes(self, email: str) -> list[RecoveryCode]:
        response = self.table.call(
            lambda: self.table.client.query(
                TableName=self.table.table_name,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :code)",
                ExpressionAttributeValues={":pk": s(recovery_pk(email)), ":code": s(CODE_PREFIX)},
                ConsistentRead=True,
            ),
            idempotent=True,
        )
        return [
            RecoveryCode(
                code_hash=item["sk"]["S"].removeprefix(CODE_PREFIX),
                account_id=str_attr(dict(item), "account_id"),
                valid_until=int_attr(dict(item), "valid_until", 0) or 0,
                used="used" in item,
            )
            for item in response.get("Items", [])
        ]

    def use_recovery_code(self, email: str, code_hash: str, *, now: int) -> None:
        token = uuid.uuid4().hex  # tells a retry of this call from a concurrent confirm
        try:
            self.table.conditional_update(
                key_of(recovery_pk(email), CODE_PREFIX + code_hash),
                idempotent=True,
                UpdateExpression="SET used = :token",
                ConditionExpression=f"{ITEM_PRESENT} AND valid_until > :now AND attribute_not_exists(used)",
                ExpressionAttributeValues={":token": s(token), ":now": n(now)},
            )
        except ConditionFailed as failed:
            if str_attr(failed.item or {}, "used") == token:
                return  # an earlier attempt of this call used it
            raise CodeRejected("wrong, expired or used code") from None
