"""Webhook endpoints in the metering table, one item each, under their account's partition:

    WEBHOOKS#<account id> / WEBHOOK#<id>     url, secret, created_at

so that listing an account's endpoints is one Query, and nothing of another account's is in reach of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fileapi.storage.table import DynamoTable, int_attr, key_of, n, s, str_attr

HOOK_SK_PREFIX = "WEBHOOK#"
MAX_WEBHOOKS = 10  # per account


@dataclass(frozen=True)
class Webhook:
    """A registered endpoint. `created_at`: epoch seconds."""

    id: str
    account_id: str
    url: str
    secret: str
    created_at: int


class WebhookStore:
    """Webhook endpoints over one table."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    def put(self, webhook: Webhook) -> None:
        """Store an endpoint (its id is new)."""
        from fileapi.operations.store import create_item

        create_item(
            self.table,
            key_of(f"WEBHOOKS#{webhook.account_id}", HOOK_SK_PREFIX + webhook.id),
            {"url": s(webhook.url), "secret": s(webhook.secret), "created_at": n(webhook.created_at)},
        )

    def get(self, account_id: str, webhook_id: str) -> Webhook | None:
        """The account's endpoint, or None."""
        item = self.table.get(f"WEBHOOKS#{account_id}", HOOK_SK_PREFIX + webhook_id)
        return _webhook(account_id, item) if item is not None else None

    def list(self, account_id: str) -> list[Webhook]:
        """The account's endpoints, oldest first."""
        response = self.table.call(
            lambda: self.table.client.query(
                TableName=self.table.table_name,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
                ExpressionAttributeValues={":pk": s(f"WEBHOOKS#{account_id}"), ":prefix": s(HOOK_SK_PREFIX)},
                ConsistentRead=True,
                Limit=MAX_WEBHOOKS * 2,
            ),
            idempotent=True,
        )
        hooks = [_webhook(account_id, dict(item)) for item in response.get("Items", [])]
        return sorted(hooks, key=lambda hook: (hook.created_at, hook.id))

    def delete(self, account_id: str, webhook_id: str) -> None:
        """Forget the endpoint (deliveries already queued for it are dropped when they come)."""
        self.table.call(
            lambda: self.table.client.delete_item(
                TableName=self.table.table_name, Key=key_of(f"WEBHOOKS#{account_id}", HOOK_SK_PREFIX + webhook_id)
            ),
            idempotent=True,
        )


def _webhook(account_id: str, item: dict[str, Any]) -> Webhook:
    return Webhook(
        id=item["sk"]["S"].removeprefix(HOOK_SK_PREFIX),
        account_id=account_id,
        url=str_attr(item, "url", "") or "",
        secret=str_attr(item, "secret", "") or "",
        created_at=int_attr(item, "created_at", 0) or 0,
    )
