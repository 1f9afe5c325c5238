"""AccountStore on DynamoDB (see `fileapi.storage.table` for the items).

Writes that can be repeated safely after a lost reply carry a token written with the change (or
are plain puts/sets), so the call policy may retry them: create_account (a fresh account id),
replace_key and claim_event (and use_recovery_code, in mailed_secrets) recognise their own earlier attempt.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from fileapi.metering.accounts import Account, Limits
from fileapi.metering.dynamo.admission_store import BUCKET_BUSY, BUCKET_IDLE, read_shards
from fileapi.metering.dynamo.items import (
    CONTACT_SK,
    PROFILE_SK,
    account_from_items,
    account_pk,
    contact_attributes,
    contact_pk,
    customer_pk,
    email_pk,
    fresh_meter_attributes,
    key_pk,
    profile_attributes,
    shard_item,
    shard_key,
)
from fileapi.metering.dynamo.legacy_set import discard_from_legacy_set, seal_legacy_set
from fileapi.metering.dynamo.mailed_secrets import DynamoMailedItems, delivery_item
from fileapi.metering.dynamo.relayout import contact_key, contact_update, shard_operation
from fileapi.metering.plans import Plan
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.resharding import layout
from fileapi.metering.storage import (
    AccountExists,
    AccountStore,
    BucketEmpty,
    KeyChanged,
    NoSuchAccount,
    PendingDelivery,
    StoreUnavailable,
)
from fileapi.storage.table import (
    CONDITION_FAILED,
    ITEM_ABSENT,
    ITEM_PRESENT,
    ConditionFailed,
    DynamoTable,
    TransactionCanceled,
    int_attr,
    key_of,
    n,
    s,
)

UPDATE_ATTEMPTS = 10


class DynamoAccountStore(DynamoMailedItems, AccountStore):
    """AccountStore over a `DynamoTable`."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table
        self._last_tat: dict[str, int] = {}

    def create_account(
        self, account: Account, limits: Limits, *, deliver_key: str | None = None, shared_email: bool = False
    ) -> None:
        account_id = s(account.account_id)
        # The first account of an address holds EMAIL#<address>/EMAIL (unique); later ones, of other payment
        # customers, an item of their own under the same partition.
        email_sk = f"ACCOUNT#{account.account_id}" if shared_email else "EMAIL"
        items = [
            {
                **key_of(account_pk(account.account_id), PROFILE_SK),
                **profile_attributes(account, limits),
                **fresh_meter_attributes(),
            },
            *(shard_item(account, limits, shard) for shard in range(1, limits.shards)),
            {**key_of(contact_pk(account.account_id), CONTACT_SK), **contact_attributes(account)},
            {**key_of(key_pk(account.key_hash), "KEY"), "account_id": account_id},
            {**key_of(email_pk(account.email), email_sk), "account_id": account_id},
        ]
        if account.customer_id:
            items.append({**key_of(customer_pk(account.customer_id), "CUSTOMER"), "account_id": account_id})
        if deliver_key is not None:
            delivery = PendingDelivery(account.account_id, account.email, account.plan, deliver_key)
            items.append(delivery_item(delivery))
        try:
            self.table.transact([{"Put": {"Item": item, "ConditionExpression": ITEM_ABSENT}} for item in items])
        except TransactionCanceled as exc:
            # A retry after a lost reply finds its own items: the account id is fresh, so a
            # profile under it was written by this very call.
            if self.table.get(account_pk(account.account_id), PROFILE_SK) is not None:
                return
            raise AccountExists(f"an account for {account.email} or this key exists") from exc

    def get_account(self, account_id: str) -> Account | None:
        items = self.table.batch_get([key_of(account_pk(account_id), PROFILE_SK), contact_key(account_id)])
        profile = next((item for item in items if item["sk"]["S"] == PROFILE_SK), None)
        contact = next((item for item in items if item["sk"]["S"] == CONTACT_SK), None)
        return None if profile is None else account_from_items(profile, contact)

    def get_account_by_key(self, key_hash: str) -> Account | None:
        return self._linked(key_pk(key_hash), "KEY")

    def get_account_by_email(self, email: str) -> Account | None:
        return self._linked(email_pk(email), "EMAIL")

    def get_accounts_by_email(self, email: str) -> list[Account]:
        response = self.table.call(
            lambda: self.table.client.query(
                TableName=self.table.table_name,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": s(email_pk(email))},
                ConsistentRead=True,
            ),
            idempotent=True,
        )
        links = sorted(response.get("Items", []), key=lambda item: item["sk"]["S"] != "EMAIL")  # the first first
        found = (self.get_account(link["account_id"]["S"]) for link in links)
        return [account for account in found if account is not None]

    def get_account_by_customer(self, customer_id: str) -> Account | None:
        return self._linked(customer_pk(customer_id), "CUSTOMER")

    def update_account(self, account: Account, limits: Limits, *, period: str) -> None:
        for _ in range(UPDATE_ATTEMPTS):
            states = read_shards(self.table, account.account_id)
            if not states:
                raise NoSuchAccount(f"no account {account.account_id}")
            operations = [shard_operation(account, limits, change, period) for change in layout(states, limits, period)]
            operations.append(contact_update(account))
            try:
                self.table.transact(operations)
            except TransactionCanceled:
                continue  # an item changed month or a removed item counted meanwhile: read again
            if account.customer_id:
                link = key_of(customer_pk(account.customer_id), "CUSTOMER")
                self._put({**link, "account_id": s(account.account_id)})
            return
        raise StoreUnavailable("the account kept changing while its plan was changed; try again")

    def list_accounts(self, *, limit: int = 1000) -> list[Account]:
        profiles = self.table.scan(
            limit=limit, FilterExpression="sk = :profile", ExpressionAttributeValues={":profile": s(PROFILE_SK)}
        )
        ids = [profile["pk"]["S"].removeprefix("ACCOUNT#") for profile in profiles]
        contacts = {item["pk"]["S"]: item for item in self.table.batch_get([contact_key(id_) for id_ in ids])}
        found = zip(profiles, ids, strict=True)
        return [account_from_items(profile, contacts.get(contact_pk(id_))) for profile, id_ in found]

    def replace_key(self, account: Account, new_key_hash: str) -> Account:
        rotated = replace(account, key_hash=new_key_hash)
        first = read_shards(self.table, account.account_id)
        shards = first[0].shards if first else 1
        operations: list[dict[str, Any]] = [
            {
                "Update": {
                    "Key": shard_key(account.account_id, shard),
                    "UpdateExpression": "SET key_hash = :new",
                    "ConditionExpression": "key_hash = :old",
                    "ExpressionAttributeValues": {":new": s(new_key_hash), ":old": s(account.key_hash)},
                }
            }
            for shard in range(shards)
        ]
        operations += [
            {"Delete": {"Key": key_of(key_pk(account.key_hash), "KEY"), "ConditionExpression": ITEM_PRESENT}},
            {
                "Put": {
                    "Item": {**key_of(key_pk(new_key_hash), "KEY"), "account_id": s(account.account_id)},
                    "ConditionExpression": ITEM_ABSENT,
                }
            },
        ]
        try:
            self.table.transact(operations)
        except TransactionCanceled as exc:
            current = self.get_account(account.account_id)
            if current is None or current.key_hash != new_key_hash:
                raise KeyChanged("the account's key changed meanwhile") from exc
            # else an earlier attempt of this call, whose reply was lost, did it
        discard_from_legacy_set(self.table, account.key_hash)
        return rotated

    def seal_legacy_keys(self) -> int | None:
        return seal_legacy_set(self.table)

    def claim_event(self, event_id: str, *, expires_at: int) -> bool:
        key = key_of(f"EVENT#{event_id}", "EVENT")
        token = uuid.uuid4().hex  # tells a retry of this call from another delivery
        try:
            self.table.call(
                lambda: self.table.client.put_item(
                    TableName=self.table.table_name,
                    Item={**key, "claimed_by": s(token), "expires_at": n(expires_at)},
                    ConditionExpression=ITEM_ABSENT,
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                ),
                idempotent=True,
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise
            old: dict[str, Any] = exc.response.get("Item") or {}  # type: ignore[assignment]
            return bool(old.get("claimed_by", {}).get("S") == token)
        return True

    def release_event(self, event_id: str) -> None:
        self.table.call(
            lambda: self.table.client.delete_item(
                TableName=self.table.table_name, Key=key_of(f"EVENT#{event_id}", "EVENT")
            ),
            idempotent=True,
        )

    def put_plan(self, plan: Plan) -> None:
        self._put(
            {
                **key_of(f"PLAN#{plan.name}", "PLAN"),
                "sustained_per_second": {"N": str(plan.sustained_per_second)},
                "burst": n(plan.burst),
                "quota_monthly": n(plan.quota_monthly),
                "shards": n(plan.shards),
            }
        )

    def get_plan(self, name: str) -> Plan | None:
        item = self.table.get(f"PLAN#{name}", "PLAN")
        return None if item is None else _plan_from_item(item)

    def list_plans(self) -> list[Plan]:
        items: list[dict[str, Any]] = []
        start: dict[str, Any] | None = None
        while True:
            request: dict[str, Any] = {
                "TableName": self.table.table_name,
                "FilterExpression": "sk = :plan",
                "ExpressionAttributeValues": {":plan": s("PLAN")},
            }
            if start:
                request["ExclusiveStartKey"] = start
            page = self.table.call(partial(self.table.client.scan, **request), idempotent=True)
            items.extend(dict(item) for item in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if not start:
                return sorted((_plan_from_item(item) for item in items), key=lambda plan: plan.name)

    def throttle(self, subject: str, bucket: Bucket, *, expires_at: int) -> int:
        key = key_of(f"THROTTLE#{subject}", "BUCKET")
        values: dict[str, Any] = {":now": n(bucket.now_us), ":expires": n(expires_at)}
        idle = {
            "UpdateExpression": "SET tat = :start, expires_at = :expires",
            "ConditionExpression": f"attribute_not_exists(tat) OR {BUCKET_IDLE}",  # the first take makes the item
            "ExpressionAttributeValues": {**values, ":start": n(bucket.now_us + bucket.interval_us)},
        }
        busy = {
            "UpdateExpression": "SET tat = tat + :interval, expires_at = :expires",
            "ConditionExpression": BUCKET_BUSY,
            "ExpressionAttributeValues": {
                **values,
                ":interval": n(bucket.interval_us),
                ":ceiling": n(bucket.ceiling_us),
            },
        }
        case = busy if self._last_tat.get(subject, 0) > bucket.now_us else idle
        for _ in range(3):
            try:
                # An abuse bucket may lose a token to a retry after a lost reply: safe to repeat.
                tat = int_attr(self.table.conditional_update(key, idempotent=True, **case), "tat", 0) or 0
            except ConditionFailed as failed:
                tat = int_attr(failed.item or {}, "tat", 0) or 0
                if not bucket.admits(tat):
                    raise BucketEmpty(tat) from None
                case = busy if tat > bucket.now_us else idle  # the other case applies: try it
                continue
            if len(self._last_tat) > 10_000:
                self._last_tat.clear()
            self._last_tat[subject] = tat
            return tat
        raise StoreUnavailable("the throttle item kept changing under concurrent requests")

    def _linked(self, pk: str, sk: str) -> Account | None:
        link = self.table.get(pk, sk)
        return None if link is None else self.get_account(link["account_id"]["S"])

    def _put(self, item: dict[str, Any]) -> None:
        self.table.call(lambda: self.table.client.put_item(TableName=self.table.table_name, Item=item), idempotent=True)


def _plan_from_item(item: dict[str, Any]) -> Plan:
    return Plan(
        name=item["pk"]["S"].removeprefix("PLAN#"),
        sustained_per_second=float(item["sustained_per_second"]["N"]),
        burst=int(item["burst"]["N"]),
        quota_monthly=int(item["quota_monthly"]["N"]),
        shards=int(item["shards"]["N"]),
    )
