"""The metering table on DynamoDB: client, schema, and one call policy that tells faults apart.

Table: partition key `pk`, sort key `sk`, TTL attribute `expires_at`, on demand. Items:

    ACCOUNT#<id> / PROFILE       the account (e-mail, plan, status, key hash, overrides, customer id) and its
                                 first admission item (`fileapi.metering.dynamo.items`; under 1 KB: one write unit)
    ACCOUNT#<id>#<k> / SHARD     admission item k of a key spread over several (k >= 1)
    KEY#<sha256> / KEY           account_id of the active key (never changes; deleted on rotation)
    EMAIL#<address> / EMAIL      account_id (unique e-mail index; later accounts of the address: / ACCOUNT#<id>)
    CUSTOMER#<id> / CUSTOMER     account_id (the payment provider's customer)
    PLAN#<name> / PLAN           a custom plan
    THROTTLE#<subject> / BUCKET  tat of an abuse bucket (recovery requests; TTL)
    DELIVERY#<id> / DELIVERY     a key's e-mail delivery (`fileapi.metering.dynamo.mailed_secrets`)
    RECOVERY#<address> / CODE#<sha256>  a recovery code (TTL)
    EVENT#<id> / EVENT           a claimed webhook event (TTL)

Faults: botocore's own retries are off (a blind retry of a write whose reply was lost counts it
twice). `DynamoTable.call` retries what certainly did not apply (throttling, a connection that was
never made, a cancelled transaction) within a time budget, and raises Ambiguous for a write whose
outcome is unknown (read timeout, closed connection, a 5xx from DynamoDB): its caller resolves it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar, cast

import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from botocore.exceptions import ConnectionError as NotConnected

from fileapi.setting_variables import DYNAMODB_READ_TIMEOUT_SECONDS
from fileapi.storage.errors import Ambiguous, StoreUnavailable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

T = TypeVar("T")

# Errors after which the request certainly did not change the table: retrying is safe.
NOT_APPLIED_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "TransactionConflictException",
    }
)
# Errors after which a write may or may not have been applied.
UNKNOWN_OUTCOME_CODES = frozenset({"InternalServerError", "ServiceUnavailable"})
CONDITION_FAILED = "ConditionalCheckFailedException"
# Conditions on whether the item a write names exists (every item has a partition key).
ITEM_PRESENT = "attribute_exists(pk)"
ITEM_ABSENT = "attribute_not_exists(pk)"
TRANSACTION_CANCELED = "TransactionCanceledException"

# Timeouts sized so that a table that cannot be reached, or does not answer, gives 503 within 2 s:
# in a region a connection takes a few ms and a single-item call 5-10 ms (p99 well under 100 ms).
# A call's attempts, retries included, start only while the worst case of one more fits BUDGET_SECONDS.
CONNECT_TIMEOUT_SECONDS = 0.4
LOCAL_CONNECT_TIMEOUT_SECONDS = 2.0
READ_TIMEOUT_SECONDS = DYNAMODB_READ_TIMEOUT_SECONDS
ATTEMPT_WORST_SECONDS = CONNECT_TIMEOUT_SECONDS + READ_TIMEOUT_SECONDS
BUDGET_SECONDS = 1.8
ATTEMPTS = 3


def create_client(
    *,
    region: str,
    endpoint_url: str | None = None,
    read_timeout: float = READ_TIMEOUT_SECONDS,
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
) -> DynamoDBClient:
    """A DynamoDB client with botocore's retries off (`DynamoTable.call` retries) and short timeouts.

    Made with botocore directly: importing boto3 pulls in s3transfer and multiprocessing,
    about 90 ms of cold start that a DynamoDB client does not need.
    """
    config = Config(
        retries={"total_max_attempts": 1, "mode": "standard"},
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        tcp_keepalive=True,
    )
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


class DynamoTable:
    """One table and the call policy every store method goes through.

    :param attempts: how many times a call that certainly did not apply is tried.
    :param budget_seconds: the time all attempts of one call may take together.
    :param attempt_worst_seconds: the longest one attempt can take (the client's connect + read timeouts).
    """

    def __init__(
        self,
        table_name: str,
        client: DynamoDBClient,
        *,
        attempts: int = ATTEMPTS,
        budget_seconds: float = BUDGET_SECONDS,
        attempt_worst_seconds: float = ATTEMPT_WORST_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.table_name = table_name
        self.client = client
        self.attempts = attempts
        self.budget_seconds = budget_seconds
        self.attempt_worst_seconds = attempt_worst_seconds
        self._sleep = sleep

    def call(self, operation: Callable[[], T], *, idempotent: bool) -> T:
        """Run `operation`; retry what did not apply, and what is `idempotent` (a read, a put, or a write
        made safe to repeat); raise Ambiguous for any other write of unknown outcome, and StoreUnavailable
        when the retries or the budget run out. Other ClientErrors pass through."""
        started = time.monotonic()
        failure = "no attempt made"
        for attempt in range(1, self.attempts + 1):
            try:
                return operation()
            except ClientError as exc:
                code = exc.response["Error"]["Code"]
                if code in UNKNOWN_OUTCOME_CODES:
                    if not idempotent:
                        raise Ambiguous(f"DynamoDB answered {code}") from None
                elif code not in NOT_APPLIED_CODES:
                    raise
                failure = f"DynamoDB answered {code}"
            except NotConnected as exc:
                failure = f"DynamoDB unreachable ({type(exc).__name__})"
            except BotoCoreError as exc:
                if not idempotent:
                    raise Ambiguous(f"no reply from DynamoDB ({type(exc).__name__})") from None
                failure = f"DynamoDB did not answer ({type(exc).__name__})"
            pause = random.uniform(0, 0.025 * 2**attempt)  # noqa: S311 (backoff jitter)
            elapsed = time.monotonic() - started
            if attempt == self.attempts or elapsed + pause + self.attempt_worst_seconds > self.budget_seconds:
                break
            self._sleep(pause)
        raise StoreUnavailable(failure)

    def get(self, pk: str, sk: str, *, attributes: tuple[str, ...] | None = None) -> dict[str, Any] | None:
        """One item, read consistently (None when absent): only `attributes`, when given (a projection, as
        an IAM policy limited to those attributes requires)."""
        projection: dict[str, Any] = {}
        if attributes is not None:
            projection = {
                "ProjectionExpression": ", ".join(f"#a{index}" for index in range(len(attributes))),
                "ExpressionAttributeNames": {f"#a{index}": name for index, name in enumerate(attributes)},
            }
        response = self.call(
            lambda: self.client.get_item(
                TableName=self.table_name, Key={"pk": {"S": pk}, "sk": {"S": sk}}, ConsistentRead=True, **projection
            ),
            idempotent=True,
        )
        item = response.get("Item")
        return dict(item) if item is not None else None

    def conditional_update(self, key: dict[str, Any], *, idempotent: bool = False, **spec: Any) -> dict[str, Any]:
        """One conditional UpdateItem returning ALL_NEW; raises ConditionFailed(old item) on a failed condition."""
        try:
            response = self.call(
                lambda: self.client.update_item(
                    TableName=self.table_name,
                    Key=key,
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                    **spec,
                ),
                idempotent=idempotent,
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise
            old: dict[str, Any] | None = exc.response.get("Item")  # type: ignore[assignment]
            raise ConditionFailed(dict(old) if old is not None else None) from exc
        return dict(response.get("Attributes", {}))

    def put_absent(self, item: dict[str, Any]) -> bool:
        """Put `item` unless an item with its key exists (then leave that one as it is); True when put."""
        try:
            self.call(
                lambda: self.client.put_item(TableName=self.table_name, Item=item, ConditionExpression=ITEM_ABSENT),
                idempotent=True,
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise
            return False
        return True

    def scan(self, *, limit: int, **request: Any) -> list[dict[str, Any]]:
        """The items a Scan with `request` (a filter, its values) finds, page after page, at most `limit`."""
        found: list[dict[str, Any]] = []
        start: dict[str, Any] | None = None
        while len(found) < limit:
            page_request = {"TableName": self.table_name, **request}
            if start:
                page_request["ExclusiveStartKey"] = start
            page = self.call(partial(self.client.scan, **page_request), idempotent=True)
            found.extend(dict(item) for item in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        return found[:limit]

    def batch_get(self, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The items of `keys` that exist, read consistently (any order); unprocessed keys are asked again."""
        found: list[dict[str, Any]] = []
        pending = list(keys)
        while pending:
            batch, pending = pending[:100], pending[100:]
            request: dict[str, Any] = {self.table_name: {"Keys": batch, "ConsistentRead": True}}
            while request:
                response = self.call(partial(self.client.batch_get_item, RequestItems=request), idempotent=True)
                found.extend(dict(item) for item in response.get("Responses", {}).get(self.table_name, []))
                request = dict(response.get("UnprocessedKeys") or {})
        return found

    def transact(self, operations: list[dict[str, Any]]) -> None:
        """One TransactWriteItems over this table (each operation's TableName is filled in); repeatable after
        a lost reply only where its conditions make it so. Raises TransactionCanceled(reasons) when a
        condition fails."""
        for operation in operations:
            next(iter(operation.values()))["TableName"] = self.table_name
        items = cast("list[TransactWriteItemTypeDef]", operations)
        try:
            self.call(lambda: self.client.transact_write_items(TransactItems=items), idempotent=True)
        except ClientError as exc:
            if exc.response["Error"]["Code"] != TRANSACTION_CANCELED:
                raise
            reasons = [reason.get("Code", "") for reason in exc.response.get("CancellationReasons", [])]
            raise TransactionCanceled(reasons) from exc


class TransactionCanceled(Exception):
    """A transaction's condition failed (or it conflicted); `reasons` has one code per operation ('None': fine)."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__(", ".join(reasons) or "transaction canceled")
        self.reasons = reasons


class ConditionFailed(Exception):
    """A conditional write's condition failed; `item` is the item as it was (None: there was none)."""

    def __init__(self, item: dict[str, Any] | None) -> None:
        super().__init__("condition failed")
        self.item = item


def key_of(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def n(value: int) -> dict[str, str]:
    """A DynamoDB number attribute."""
    return {"N": str(value)}


def s(value: str) -> dict[str, str]:
    """A DynamoDB string attribute."""
    return {"S": value}


def int_attr(item: dict[str, Any], name: str, default: int | None = None) -> int | None:
    value = item.get(name)
    return int(value["N"]) if value is not None else default


def str_attr(item: dict[str, Any], name: str, default: str | None = None) -> str | None:
    value = item.get(name)
    return str(value["S"]) if value is not None else default
