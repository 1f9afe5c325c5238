"""MeteringStore on one DynamoDB table (partition key `pk`, sort key `sk`, TTL `expires_at`).

Items:
    ACCOUNT#<id> / PROFILE       e-mail, plan, status, key hash, overrides, customer id
    KEY#<sha256> / KEY           account id of the active key and a copy of the profile (one read
                                 authenticates; the two are written together in transactions)
    EMAIL#<address> / EMAIL      account id (unique e-mail index)
    ACCOUNT#<id> / USAGE#<YYYY-MM>  used (count), tat (bucket, microseconds), last_request

Retries: botocore's own retries are off; every call goes through `_call`, which retries
throttling, 5xx and connection errors at most `attempts` times with jittered backoff and
then raises StoreUnavailable, so the request fails closed. Retrying `count_success` is
safe because its update records the request id and a retry that finds its own id
returns the count it made instead of counting twice; the same idea (a token written with the
change, recognised by the retry) makes create_account, replace_key, use_recovery_code and
claim_event safe to retry after a lost response. Retrying `take_token` can at worst take one
extra token (never a count).
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar, cast

import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fileapi.metering.accounts import Account
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.store import (
    AccountExists,
    BucketEmpty,
    CodeRejected,
    KeyChanged,
    MeteringStore,
    QuotaUsedUp,
    StoreUnavailable,
    Usage,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

T = TypeVar("T")

RETRYABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionConflictException",
    }
)
CONDITION_FAILED = "ConditionalCheckFailedException"

# Named condition parts, combined per call.
QUOTA_LEFT = "(attribute_not_exists(used) OR used < :quota)"
QUOTA_NONE = "(used < :quota)"  # false for a missing `used`: a quota of 0 admits nothing
BUCKET_IDLE = "(attribute_not_exists(tat) OR tat <= :now)"
BUCKET_BUSY = "(tat > :now AND tat <= :ceiling)"
NOT_THIS_REQUEST = "(attribute_not_exists(last_request) OR last_request <> :rid)"
ITEM_ABSENT = "attribute_not_exists(pk)"
ITEM_PRESENT = "attribute_exists(pk)"

_PROFILE_FIELDS = ("email", "plan", "status", "key_hash")
_OPTIONAL_STR = ("customer_id",)
_OPTIONAL_INT = ("quota_override", "sustained_override", "burst_override")


def create_client(*, region: str, endpoint_url: str | None = None) -> DynamoDBClient:
    """A DynamoDB client with botocore's retries off (the store retries) and short timeouts.

    Made with botocore directly: importing boto3 pulls in s3transfer and multiprocessing,
    about 90 ms of cold start that a DynamoDB client does not need.
    """
    config = Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=2, read_timeout=3)
    session = botocore.session.get_session()
    client = session.create_client("dynamodb", region_name=region, endpoint_url=endpoint_url, config=config)
    return cast("DynamoDBClient", client)


def create_table(client: DynamoDBClient, table_name: str) -> None:
    """Create the table (on-demand, TTL on `expires_at`) if it does not exist; for local use and tests."""
    try:
        client.create_table(
            TableName=table_name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ResourceInUseException":
            raise
        return
    client.update_time_to_live(
        TableName=table_name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"}
    )


class DynamoStore(MeteringStore):
    """MeteringStore over DynamoDB.

    :param table_name: the table (see `create_table` for its schema).
    :param client: an injected client; the default comes from `create_client`.
    :param attempts: how many times a failing call is tried before StoreUnavailable.
    """

    def __init__(
        self,
        table_name: str,
        client: DynamoDBClient,
        *,
        attempts: int = 3,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.table_name = table_name
        self.client = client
        self.attempts = attempts
        self._sleep = sleep
        self._last_tat: dict[str, int] = {}

    # accounts

    def get_account_by_key(self, key_hash: str) -> Account | None:
        # One read on the hot path: the key item carries a copy of the profile.
        key_item = self._get(f"KEY#{key_hash}", "KEY")
        if key_item is None:
            return None
        account = _account_from_item(key_item["account_id"]["S"], key_item)
        return account if account.key_hash == key_hash else None

    def get_account_by_email(self, email: str) -> Account | None:
        email_item = self._get(f"EMAIL#{email.lower()}", "EMAIL")
        return None if email_item is None else self._get_account(email_item["account_id"]["S"])

    def create_account(self, account: Account) -> None:
        account_id = {"S": account.account_id}
        items = [
            {"pk": {"S": f"ACCOUNT#{account.account_id}"}, "sk": {"S": "PROFILE"}, **_profile_attributes(account)},
            *(
                [{"pk": {"S": f"CUSTOMER#{account.customer_id}"}, "sk": {"S": "CUSTOMER"}, "account_id": account_id}]
                if account.customer_id
                else []
            ),
            {
                "pk": {"S": f"KEY#{account.key_hash}"},
                "sk": {"S": "KEY"},
                "account_id": account_id,
                **_profile_attributes(account),
            },
            {"pk": {"S": f"EMAIL#{account.email.lower()}"}, "sk": {"S": "EMAIL"}, "account_id": account_id},
        ]
        try:
            self._call(
                lambda: self.client.transact_write_items(
                    TransactItems=[
                        {"Put": {"TableName": self.table_name, "Item": item, "ConditionExpression": ITEM_ABSENT}}
                        for item in items
                    ]
                )
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            # A retry after a lost response finds its own items: the account id is fresh, so a
            # profile under it was written by this very call.
            if self._get(f"ACCOUNT#{account.account_id}", "PROFILE") is not None:
                return
            raise AccountExists(f"an account for {account.email} or this key exists") from exc

    def get_account_by_customer(self, customer_id: str) -> Account | None:
        link = self._get(f"CUSTOMER#{customer_id}", "CUSTOMER")
        return None if link is None else self._get_account(link["account_id"]["S"])

    def claim_event(self, event_id: str, *, expires_at: int) -> bool:
        key = {"pk": {"S": f"EVENT#{event_id}"}, "sk": {"S": "EVENT"}}
        token = uuid.uuid4().hex  # tells a retry of this call from another delivery
        try:
            self._call(
                lambda: self.client.put_item(
                    TableName=self.table_name,
                    Item={**key, "claimed_by": {"S": token}, "expires_at": _n(expires_at)},
                    ConditionExpression=ITEM_ABSENT,
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == CONDITION_FAILED:
                return bool(self._old_item(exc, key).get("claimed_by", {}).get("S") == token)
            raise
        return True

    def release_event(self, event_id: str) -> None:
        self._call(
            lambda: self.client.delete_item(
                TableName=self.table_name, Key={"pk": {"S": f"EVENT#{event_id}"}, "sk": {"S": "EVENT"}}
            )
        )

    def update_account(self, account: Account) -> None:
        attributes = _profile_attributes(account)
        names = {f"#{name}": name for name in attributes}
        values = {f":{name}": value for name, value in attributes.items()}
        removed = [name for name in (*_OPTIONAL_STR, *_OPTIONAL_INT) if name not in attributes]
        names.update({f"#{name}": name for name in removed})
        expression = "SET " + ", ".join(f"#{name} = :{name}" for name in attributes)
        if removed:
            expression += " REMOVE " + ", ".join(f"#{name}" for name in removed)
        keys = (
            {"pk": {"S": f"ACCOUNT#{account.account_id}"}, "sk": {"S": "PROFILE"}},
            {"pk": {"S": f"KEY#{account.key_hash}"}, "sk": {"S": "KEY"}},
        )
        self._call(
            lambda: self.client.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": self.table_name,
                            "Key": key,
                            "UpdateExpression": expression,
                            "ConditionExpression": ITEM_PRESENT,
                            "ExpressionAttributeNames": names,
                            "ExpressionAttributeValues": values,
                        }
                    }
                    for key in keys
                ]
            )
        )
        if account.customer_id:
            self._call(
                lambda: self.client.put_item(
                    TableName=self.table_name,
                    Item={
                        "pk": {"S": f"CUSTOMER#{account.customer_id}"},
                        "sk": {"S": "CUSTOMER"},
                        "account_id": {"S": account.account_id},
                    },
                )
            )

    def list_accounts(self, *, limit: int = 1000) -> list[Account]:
        accounts: list[Account] = []
        start: dict[str, Any] | None = None
        while len(accounts) < limit:
            request: dict[str, Any] = {
                "TableName": self.table_name,
                "FilterExpression": "sk = :profile",
                "ExpressionAttributeValues": {":profile": {"S": "PROFILE"}},
            }
            if start:
                request["ExclusiveStartKey"] = start
            page = self._call(partial(self.client.scan, **request))
            for item in page.get("Items", []):
                accounts.append(_account_from_item(item["pk"]["S"].removeprefix("ACCOUNT#"), dict(item)))
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        return accounts[:limit]

    def replace_key(self, account: Account, new_key_hash: str) -> Account:
        rotated = replace(account, key_hash=new_key_hash)
        profile_key = {"pk": {"S": f"ACCOUNT#{account.account_id}"}, "sk": {"S": "PROFILE"}}
        try:
            self._call(
                lambda: self.client.transact_write_items(
                    TransactItems=[
                        {
                            "Update": {
                                "TableName": self.table_name,
                                "Key": profile_key,
                                "UpdateExpression": "SET key_hash = :new",
                                "ConditionExpression": "key_hash = :old",
                                "ExpressionAttributeValues": {
                                    ":new": {"S": new_key_hash},
                                    ":old": {"S": account.key_hash},
                                },
                            }
                        },
                        {
                            "Delete": {
                                "TableName": self.table_name,
                                "Key": {"pk": {"S": f"KEY#{account.key_hash}"}, "sk": {"S": "KEY"}},
                                "ConditionExpression": ITEM_PRESENT,
                            }
                        },
                        {
                            "Put": {
                                "TableName": self.table_name,
                                "Item": {
                                    "pk": {"S": f"KEY#{new_key_hash}"},
                                    "sk": {"S": "KEY"},
                                    "account_id": {"S": account.account_id},
                                    **_profile_attributes(rotated),
                                },
                                "ConditionExpression": ITEM_ABSENT,
                            }
                        },
                    ]
                )
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            current = self._get_account(account.account_id)
            if current is not None and current.key_hash == new_key_hash:
                return rotated  # an earlier attempt of this call, whose answer was lost, did it
            raise KeyChanged("the account's key changed meanwhile") from exc
        return rotated

    def put_recovery_code(self, email: str, code_hash: str, *, expires_at: int) -> None:
        self._call(
            lambda: self.client.put_item(
                TableName=self.table_name,
                Item={
                    "pk": {"S": f"RECOVERY#{email.lower()}"},
                    "sk": {"S": "CODE"},
                    "code_hash": {"S": code_hash},
                    "valid_until": _n(expires_at),
                    "tries": _n(0),
                    "expires_at": _n(expires_at + 86_400),  # TTL cleans up a day later
                },
            )
        )

    def use_recovery_code(self, email: str, code_hash: str, *, now: int, max_tries: int) -> None:
        key = {"pk": {"S": f"RECOVERY#{email.lower()}"}, "sk": {"S": "CODE"}}
        token = uuid.uuid4().hex  # tells a retry of this call from a concurrent confirm
        try:
            self._call(
                lambda: self.client.update_item(
                    TableName=self.table_name,
                    Key=key,
                    UpdateExpression="SET used = :true, used_by = :token",
                    ConditionExpression=(
                        f"{ITEM_PRESENT} AND code_hash = :hash AND valid_until > :now AND tries < :max "
                        "AND attribute_not_exists(used)"
                    ),
                    ExpressionAttributeValues={
                        ":true": {"BOOL": True},
                        ":token": {"S": token},
                        ":hash": {"S": code_hash},
                        ":now": _n(now),
                        ":max": _n(max_tries),
                    },
                )
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise
            if self._old_item(exc, key).get("used_by", {}).get("S") == token:
                return  # an earlier attempt of this call used it
            self._count_failed_try(key, max_tries)
            raise CodeRejected("wrong, expired or used code") from exc

    def _count_failed_try(self, key: dict[str, Any], max_tries: int) -> None:
        try:
            self._call(
                lambda: self.client.update_item(
                    TableName=self.table_name,
                    Key=key,
                    UpdateExpression="ADD tries :one",
                    ConditionExpression=f"{ITEM_PRESENT} AND attribute_not_exists(used) AND tries < :max",
                    ExpressionAttributeValues={":one": _n(1), ":max": _n(max_tries)},
                )
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise

    # usage

    def take_token(self, account_id: str, period: str, bucket: Bucket, *, quota: int | None, expires_at: int) -> int:
        key = _usage_key(account_id, period)
        quota_part = f" AND {_quota_left(quota)}" if quota is not None else ""
        values: dict[str, Any] = {
            ":now": _n(bucket.now_us),
            ":expires": _n(expires_at),
        }
        if quota is not None:
            values[":quota"] = _n(quota)
        idle = {
            "UpdateExpression": "SET tat = :start, expires_at = :expires",
            "ConditionExpression": BUCKET_IDLE + quota_part,
            "ExpressionAttributeValues": {**values, ":start": _n(bucket.now_us + bucket.interval_us)},
        }
        busy = {
            "UpdateExpression": "SET tat = tat + :interval, expires_at = :expires",
            "ConditionExpression": BUCKET_BUSY + quota_part,
            "ExpressionAttributeValues": {
                **values,
                ":interval": _n(bucket.interval_us),
                ":ceiling": _n(bucket.ceiling_us),
            },
        }
        case = busy if self._last_tat.get(account_id, 0) > bucket.now_us else idle
        for _ in range(4):
            succeeded, item = self._conditional_update(key, case)
            tat = _int_attr(item, "tat")
            if succeeded and tat is not None:
                self._remember_tat(account_id, tat)
                return tat
            if tat is not None and tat > bucket.ceiling_us:
                raise BucketEmpty(tat)
            used = _int_attr(item, "used") or 0
            if quota is not None and used >= quota:
                raise QuotaUsedUp(used)
            # The other case applies, or a concurrent request moved the item: try again.
            case = busy if tat is not None and tat > bucket.now_us else idle
        raise StoreUnavailable("the rate-limit item kept changing under concurrent requests")

    def _remember_tat(self, account_id: str, tat_us: int) -> None:
        """Remember the account's last TAT, to try the right update first next time."""
        if len(self._last_tat) > 10_000:
            self._last_tat.clear()
        self._last_tat[account_id] = tat_us

    def count_success(self, account_id: str, period: str, *, quota: int, request_id: str, expires_at: int) -> int:
        try:
            response = self._call(
                lambda: self.client.update_item(
                    TableName=self.table_name,
                    Key=_usage_key(account_id, period),
                    UpdateExpression="SET used = if_not_exists(used, :zero) + :one, "
                    "last_request = :rid, expires_at = :expires",
                    ConditionExpression=f"{_quota_left(quota)} AND {NOT_THIS_REQUEST}",
                    ExpressionAttributeValues={
                        ":zero": _n(0),
                        ":one": _n(1),
                        ":quota": _n(quota),
                        ":rid": {"S": request_id},
                        ":expires": _n(expires_at),
                    },
                    ReturnValues="UPDATED_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise
            old = self._old_item(exc, _usage_key(account_id, period))
            used = _int_attr(old, "used") or 0
            if old.get("last_request", {}).get("S") == request_id:
                return used  # an earlier attempt of this very call counted it
            raise QuotaUsedUp(used) from exc
        return int(response["Attributes"]["used"]["N"])

    def get_usage(self, account_id: str, period: str) -> Usage:
        item = self._get(f"ACCOUNT#{account_id}", f"USAGE#{period}")
        if item is None:
            return Usage(used=0, tat_us=None)
        return Usage(used=_int_attr(item, "used") or 0, tat_us=_int_attr(item, "tat"))

    # helpers

    def _conditional_update(self, key: dict[str, Any], spec: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """Run one conditional update: (True, updated attributes) or (False, the item as it was)."""
        try:
            response = self._call(
                lambda: self.client.update_item(
                    TableName=self.table_name,
                    Key=key,
                    ReturnValues="UPDATED_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                    **spec,
                )
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise
            return False, self._old_item(exc, key)
        return True, dict(response.get("Attributes", {}))

    def _old_item(self, exc: ClientError, key: dict[str, Any]) -> dict[str, Any]:
        item: dict[str, Any] | None = exc.response.get("Item")  # type: ignore[assignment]
        if item is not None:
            return dict(item)
        found = self._get(key["pk"]["S"], key["sk"]["S"])
        return found or {}

    def _get(self, pk: str, sk: str) -> dict[str, Any] | None:
        response = self._call(
            lambda: self.client.get_item(
                TableName=self.table_name, Key={"pk": {"S": pk}, "sk": {"S": sk}}, ConsistentRead=True
            )
        )
        item = response.get("Item")
        return dict(item) if item is not None else None

    def _get_account(self, account_id: str) -> Account | None:
        item = self._get(f"ACCOUNT#{account_id}", "PROFILE")
        return None if item is None else _account_from_item(account_id, item)

    def _call(self, operation: Callable[[], T]) -> T:
        """Run `operation`, retrying transient failures; raise StoreUnavailable when they persist."""
        for attempt in range(1, self.attempts + 1):
            try:
                return operation()
            except ClientError as exc:
                code = exc.response["Error"]["Code"]
                if code not in RETRYABLE_CODES:
                    raise
                failure = f"DynamoDB answered {code}"
            except BotoCoreError as exc:
                failure = f"DynamoDB unreachable ({type(exc).__name__})"
            if attempt < self.attempts:
                self._sleep(random.uniform(0, 0.025 * 2**attempt))  # noqa: S311 (backoff jitter)
        raise StoreUnavailable(failure)


def _account_from_item(account_id: str, item: dict[str, Any]) -> Account:
    fields: dict[str, Any] = {name: item[name]["S"] for name in (*_PROFILE_FIELDS, *_OPTIONAL_STR) if name in item}
    fields.update({name: int(item[name]["N"]) for name in _OPTIONAL_INT if name in item})
    return Account(account_id=account_id, **fields)


def _quota_left(quota: int) -> str:
    return QUOTA_LEFT if quota > 0 else QUOTA_NONE


def _usage_key(account_id: str, period: str) -> dict[str, Any]:
    return {"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": f"USAGE#{period}"}}


def _n(value: int) -> dict[str, str]:
    return {"N": str(value)}


def _int_attr(item: dict[str, Any], name: str) -> int | None:
    value = item.get(name)
    return int(value["N"]) if value is not None else None


def _profile_attributes(account: Account) -> dict[str, Any]:
    attributes: dict[str, Any] = {name: {"S": getattr(account, name)} for name in _PROFILE_FIELDS}
    attributes["email"] = {"S": account.email.lower()}
    for name in _OPTIONAL_STR:
        if getattr(account, name) is not None:
            attributes[name] = {"S": getattr(account, name)}
    for name in _OPTIONAL_INT:
        if getattr(account, name) is not None:
            attributes[name] = _n(getattr(account, name))
    return attributes
