"""The IAM policies of template.yaml, read as data: the converter functions may read a key's link and read and
write the admission attributes of account items, their Idempotency-Key items and the uploads and operations they
accept, and nothing wider; the Files, Operations and Webhooks functions hold exactly their own; key and e-mail
changes stay with the account and billing functions. What admission asks of DynamoDB (recorded from the code
itself) stays within the converters' policy, and no item within their reach holds an address, a customer or a
secret. And what the functions reach: the files bucket (encrypted,
never public, TLS only, every object expiring), the queues and their dead-letter queues (encrypted, kept long
enough to be read), the Operations function's limits, and the alarms on what an operator must look at."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Any

import pytest
from moto import mock_aws

from fileapi.errors import QuotaExceeded
from fileapi.idempotency import RETENTION_SECONDS
from fileapi.local.template import load_template
from fileapi.metering.admin import change_account, create_key, issue_key
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.items import (
    ADMISSION_READ,
    CONTACT_FIELDS,
    KEY_ITEM_READ,
    account_pk,
    contact_pk,
    customer_pk,
    email_pk,
    key_pk,
)
from fileapi.metering.dynamo.mailed_secrets import delivery_pk, recovery_pk
from fileapi.metering.keys import generate_key, hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.storage import Stores
from fileapi.operations.aws import OPERATION_RECEIVES
from fileapi.storage.table import DynamoTable, create_client, create_table
from tests.metering_doubles import Clock

TEMPLATE = load_template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
CONVERTERS = ("DataFunction", "ImageFunction", "PdfFunction", "CodesFunction", "RenderFunction", "TextFunction")
ACCOUNT_WRITERS = ("AccountFunction", "BillingEventsFunction")
TABLE = "MeteringTable.Arn"

READ_KEY_LINKS = [
    {
        "Sid": "ReadKeyLinks",
        "Effect": "Allow",
        "Action": ["dynamodb:GetItem"],
        "Resource": TABLE,
        "Condition": {
            "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["KEY#*"]},
            "ForAllValues:StringEquals": {"dynamodb:Attributes": list(KEY_ITEM_READ)},
            "StringEqualsIfExists": {"dynamodb:Select": "SPECIFIC_ATTRIBUTES"},
        },
    },
]


def on_account_items(sid: str) -> dict[str, Any]:
    """The statement that reads and writes the admission attributes of account items (admission and refunds)."""
    return {
        "Sid": sid,
        "Effect": "Allow",
        "Action": ["dynamodb:GetItem", "dynamodb:UpdateItem"],
        "Resource": TABLE,
        "Condition": {
            "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["ACCOUNT#*"]},
            "ForAllValues:StringEquals": {"dynamodb:Attributes": list(ADMISSION_READ)},
            "StringEqualsIfExists": {
                "dynamodb:Select": "SPECIFIC_ATTRIBUTES",
                "dynamodb:ReturnValues": ["NONE", "ALL_NEW"],
            },
        },
    }


def on_items(sid: str, actions: list[str], prefixes: list[str]) -> dict[str, Any]:
    """A statement of `actions` on the items whose partition keys start with one of `prefixes`."""
    return {
        "Sid": sid,
        "Effect": "Allow",
        "Action": actions,
        "Resource": TABLE,
        "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": prefixes}},
    }


def on_objects(sid: str, actions: list[str], *prefixes: str) -> dict[str, Any]:
    """A statement of `actions` on the bucket's objects under `prefixes`."""
    resources = [f"${{FilesBucket.Arn}}/{prefix}*" for prefix in prefixes]
    return {
        "Sid": sid,
        "Effect": "Allow",
        "Action": actions,
        "Resource": resources[0] if len(prefixes) == 1 else resources,
    }


def listing(sid: str) -> dict[str, Any]:
    """The bucket listing under results/ (to delete an operation's files), and nothing else."""
    return {
        "Sid": sid,
        "Effect": "Allow",
        "Action": ["s3:ListBucket"],
        "Resource": "FilesBucket.Arn",
        "Condition": {"StringLike": {"s3:prefix": ["results/*"]}},
    }


IDEMPOTENCY = [
    on_items("IdempotencyKeys", ["dynamodb:UpdateItem"], ["IDEMPOTENCY#*"]),
    on_objects("KeptAnswers", ["s3:GetObject", "s3:PutObject"], "idempotency/"),
]
EXPECTED_CONVERTER_STATEMENTS = [
    *READ_KEY_LINKS,
    on_account_items("AdmitOnAccountItems"),
    *IDEMPOTENCY,
    on_items("AcceptOperations", ["dynamodb:GetItem", "dynamodb:UpdateItem"], ["UPLOAD#*", "OPERATION#*"]),
    on_objects("ReadUploadsKeepBodies", ["s3:GetObject", "s3:PutObject"], "uploads/"),
    {"Sid": "QueueOperations", "Effect": "Allow", "Action": ["sqs:SendMessage"], "Resource": "OperationsQueue.Arn"},
]
EXPECTED = {
    "FilesFunction": [
        *READ_KEY_LINKS,
        on_account_items("AdmitOnAccountItems"),
        *IDEMPOTENCY,
        on_items(
            "UploadsOperationsWebhooks",
            ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
            ["UPLOAD#*", "OPERATION#*", "WEBHOOKS#*"],
        ),
        on_objects(
            "SignReadAndDeleteFiles", ["s3:PutObject", "s3:GetObject", "s3:DeleteObject"], "uploads/", "results/"
        ),
        {"Sid": "QueuePipelines", "Effect": "Allow", "Action": ["sqs:SendMessage"], "Resource": "OperationsQueue.Arn"},
        listing("ListResultsToDeleteThem"),
    ],
    "OperationsFunction": [
        on_account_items("RefundOnAccountItems"),
        on_items("RunOperations", ["dynamodb:GetItem", "dynamodb:UpdateItem"], ["OPERATION#*", "UPLOAD#*"]),
        on_items("ListWebhooks", ["dynamodb:Query"], ["WEBHOOKS#*"]),
        on_objects("ReadUploads", ["s3:GetObject"], "uploads/"),
        on_objects("WriteResults", ["s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"], "results/"),
        listing("ListResultsToDeleteThem"),
        {
            "Sid": "QueueWebhookDeliveries",
            "Effect": "Allow",
            "Action": ["sqs:SendMessage"],
            "Resource": "WebhooksQueue.Arn",
        },
        {
            "Sid": "RequeueOperationsOverTheirAccountsPlaces",
            "Effect": "Allow",
            "Action": ["sqs:SendMessage"],
            "Resource": "OperationsQueue.Arn",
        },
    ],
    "WebhooksFunction": [
        on_items("ReadEndpoints", ["dynamodb:GetItem"], ["WEBHOOKS#*"]),
        {
            "Sid": "RequeueAndDeadLetter",
            "Effect": "Allow",
            "Action": ["sqs:SendMessage"],
            "Resource": ["WebhooksQueue.Arn", "WebhooksDeadLetterQueue.Arn"],
        },
    ],
}


def statements(function: str) -> list[dict[str, Any]]:
    policies = RESOURCES[function]["Properties"].get("Policies", [])
    return [statement for policy in policies for statement in policy["Statement"]]


def test_every_function_is_covered() -> None:
    functions = {name for name, resource in RESOURCES.items() if resource["Type"] == "AWS::Serverless::Function"}
    assert functions == {*CONVERTERS, *ACCOUNT_WRITERS, *EXPECTED, "HealthFunction"}


@pytest.mark.parametrize("function", CONVERTERS)
def test_converter_functions_hold_exactly_the_admission_and_operations_policy(function: str) -> None:
    assert statements(function) == EXPECTED_CONVERTER_STATEMENTS


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_the_files_operations_and_webhooks_functions_hold_exactly_their_policy(function: str) -> None:
    assert statements(function) == EXPECTED[function]


def test_no_function_reaches_the_bucket_or_the_queues_as_a_whole() -> None:
    for name, resource in RESOURCES.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        actions = {action for statement in statements(name) for action in statement["Action"]}
        assert not {"s3:*", "sqs:*", "s3:DeleteBucket", "s3:PutBucketPolicy", "sqs:DeleteQueue"} & actions, name


def test_the_admission_attributes_leave_out_what_identifies_a_customer() -> None:
    private = {"email", "customer_id", "quota_override", "sustained_override", "burst_override", "secret"}
    assert set(CONTACT_FIELDS) | {"secret"} == private
    assert not private & set(ADMISSION_READ)
    assert not private & set(KEY_ITEM_READ)


def reachable_partitions() -> list[str]:
    """The partition key patterns of the converter functions' DynamoDB statements."""
    return [
        pattern
        for statement in EXPECTED_CONVERTER_STATEMENTS
        if statement["Resource"] == TABLE
        for pattern in statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    ]


def test_no_contact_secret_or_billing_partition_is_within_a_converters_reach() -> None:
    beyond = [
        contact_pk("a1"),
        email_pk("a@example.com"),
        customer_pk("cus_1"),
        delivery_pk("a1"),
        recovery_pk("a@example.com"),
        "EVENT#evt_1",
        "PLAN#custom",
        "THROTTLE#recover:a@example.com",
    ]
    assert [pk for pk in beyond if any(fnmatchcase(pk, pattern) for pattern in reachable_partitions())] == []
    for pk in (key_pk("h"), account_pk("a1"), f"{account_pk('a1')}#1"):
        assert any(fnmatchcase(pk, pattern) for pattern in reachable_partitions()), pk


# Words of DynamoDB's expression grammar (not attribute names).
EXPRESSION_WORDS = frozenset(
    {"SET", "REMOVE", "ADD", "DELETE", "AND", "OR", "NOT", "BETWEEN", "IN", "size", "contains", "begins_with"}
    | {"attribute_exists", "attribute_not_exists", "attribute_type", "if_not_exists", "list_append"}
)
TRANSACTION_ACTIONS = {
    "Update": "UpdateItem",
    "Put": "PutItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}


def requests_of(operation: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """What IAM authorizes of one DynamoDB call: one request per item it touches, each with its action, partition
    key, the attributes it names (keys, projections, expressions), ReturnValues and Select."""
    if operation == "TransactWriteItems":
        return [
            request
            for entry in params["TransactItems"]
            for kind, item_params in entry.items()
            for request in requests_of(TRANSACTION_ACTIONS[kind], item_params)
        ]
    key = params.get("Key") or params.get("Item") or {}
    aliases: dict[str, str] = params.get("ExpressionAttributeNames", {})
    named = {"pk", "sk", *(params.get("Item") or {})}
    for field in ("ProjectionExpression", "UpdateExpression", "ConditionExpression"):
        text = re.sub(r":\w+", " ", params.get(field, ""))
        for token in re.findall(r"#?\w+", text):
            if token.startswith("#"):
                named.add(aliases[token])
            elif token not in EXPRESSION_WORDS and not token.isdigit():
                named.add(token)
    select = None
    if operation == "GetItem":
        select = "SPECIFIC_ATTRIBUTES" if "ProjectionExpression" in params else "ALL_ATTRIBUTES"
    pk = key["pk"]["S"] if "pk" in key else "(no key: a whole-table request)"
    return [
        {
            "action": f"dynamodb:{operation}",
            "pk": pk,
            "attributes": named,
            "return_values": params.get("ReturnValues"),
            "select": select,
        }
    ]


def allowed(request: dict[str, Any], statements: list[dict[str, Any]]) -> bool:
    """Whether one of `statements` allows `request` (their conditions as IAM evaluates them)."""
    for statement in statements:
        condition = statement["Condition"]
        if_present = condition["StringEqualsIfExists"]
        if (
            request["action"] in statement["Action"]
            and any(fnmatchcase(request["pk"], p) for p in condition["ForAllValues:StringLike"]["dynamodb:LeadingKeys"])
            and request["attributes"] <= set(condition["ForAllValues:StringEquals"]["dynamodb:Attributes"])
            and request["return_values"] in (None, *if_present.get("dynamodb:ReturnValues", []))
            and request["select"] in (None, if_present["dynamodb:Select"])
        ):
            return True
    return False


@pytest.fixture()
def moto_stores() -> Iterator[Stores]:
    with mock_aws():
        table = DynamoTable("policy", create_client(region="us-east-1"), sleep=lambda _: None)
        create_table(table.client, table.table_name)
        yield dynamo_stores(table)


def test_what_admission_asks_of_dynamodb_is_within_the_converters_policy(moto_stores: Stores) -> None:
    # GIVEN a key on one item and a key spread over two items with a quota small enough to move between them,
    # made by the account functions (before recording)
    accounts = moto_stores.accounts
    pro = create_key(accounts, email="pro@example.com", plan="pro", customer_id="cus_pro")
    account, business = issue_key(accounts, email="b@example.com", plan="business", customer_id="cus_b", deliver=True)
    change_account(accounts, replace(account, quota_override=5))  # shares of 3 and 2
    table = moto_stores.admission.table  # type: ignore[attr-defined]
    recorded: list[tuple[str, dict[str, Any]]] = []
    table.client.meta.events.register(
        "provide-client-params.dynamodb.*", lambda params, model, **_: recorded.append((model.name, params))
    )
    # WHEN a converter function's Meter admits, refunds and forgives across the turn of a month, and reads an
    # item back, until the small quota moves between the items
    clock = Clock(int(datetime(2026, 11, 30, 23, 59, 55, tzinfo=UTC).timestamp() * 1_000_000))
    meter = Meter(moto_stores.admission, clock=clock, sleep=lambda _: None)
    last = None
    for round_ in range(16):
        clock.now_us += 500_000
        for key in (pro, business):
            try:
                last = meter.admit(f"Bearer {key}", counted=True, request_id=uuid.uuid4().hex)
            except QuotaExceeded:  # the small quota runs out: one of the outcomes exercised
                continue
            if (key == pro and round_ % 3 == 0) or (key == business and last.shard == 0):
                meter.refund(last)  # the spread key's first item keeps its quota: the second runs dry first
    assert last is not None
    meter.settler.forgive(last.account_id, last.period, uuid.uuid4().hex, last.shard, day=last.day)
    moto_stores.admission.read(last.account_id, shard=last.shard)
    # THEN every request was one the converters' statements allow
    requests = [request for operation, params in recorded for request in requests_of(operation, params)]
    refused = [request for request in requests if not allowed(request, EXPECTED_CONVERTER_STATEMENTS)]
    assert refused == []
    # AND the run went through each kind of call admission makes: key link, item read, admission, quota move
    assert {request["action"] for request in requests} == {"dynamodb:GetItem", "dynamodb:UpdateItem"}
    assert "TransactWriteItems" in {operation for operation, _ in recorded}
    assert {request["pk"].split("#")[0] for request in requests} == {"KEY", "ACCOUNT"}
    assert hash_key(pro) in {request["pk"].removeprefix("KEY#") for request in requests}


def test_no_item_within_a_converters_reach_holds_a_contact_field(moto_stores: Stores) -> None:
    # GIVEN accounts made and changed by the account functions (checkout, plan change with overrides, rotation)
    accounts = moto_stores.accounts
    account, _ = issue_key(accounts, email="c@example.com", plan="pro", customer_id="cus_c", quota=9, deliver=True)
    change_account(accounts, replace(account, plan="business", burst_override=1000))
    current = accounts.get_account(account.account_id)
    assert current is not None
    accounts.replace_key(current, hash_key(generate_key()))
    create_key(accounts, email="d@example.com", plan="pro", quota=5)
    # THEN an admission write, whose whole item comes back (ALL_NEW, or ALL_OLD when its condition fails: there is
    # no IAM condition key for ReturnValuesOnConditionCheckFailure), can return only admission attributes
    table = moto_stores.admission.table  # type: ignore[attr-defined]
    reachable = [
        item
        for item in table.scan(limit=1000)
        if any(fnmatchcase(item["pk"]["S"], pattern) for pattern in reachable_partitions())
    ]
    assert reachable and all(set(item) <= set(ADMISSION_READ) | set(KEY_ITEM_READ) for item in reachable)


def test_only_the_account_and_billing_functions_write_whole_items() -> None:
    for name, resource in RESOURCES.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        for statement in statements(name):
            writes = set(statement["Action"]) & {
                "dynamodb:PutItem",
                "dynamodb:DeleteItem",
                "dynamodb:BatchWriteItem",
                "dynamodb:Scan",
            }
            # The Files function deletes uploads, operations and webhooks: its statement names those items only.
            prefixes = statement.get("Condition", {}).get("ForAllValues:StringLike", {}).get("dynamodb:LeadingKeys")
            assert not writes or name in ACCOUNT_WRITERS or prefixes == ["UPLOAD#*", "OPERATION#*", "WEBHOOKS#*"], (
                name,
                writes,
            )
            assert "dynamodb:*" not in statement["Action"]


DAY = 86_400
# SQS-triggered functions: a queue's visibility timeout is six times its function's timeout (AWS's guidance).
VISIBILITY_PER_TIMEOUT = 6
DEAD_LETTER_RETENTION = 14 * DAY  # SQS's longest
WORK_QUEUES = {"OperationsQueue": "OperationsFunction", "WebhooksQueue": "WebhooksFunction"}


def properties(resource: str) -> dict[str, Any]:
    return dict(RESOURCES[resource]["Properties"])


def test_the_files_bucket_is_encrypted_owned_and_never_public() -> None:
    bucket = properties("FilesBucket")
    assert bucket["BucketEncryption"] == {
        "ServerSideEncryptionConfiguration": [
            {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}, "BucketKeyEnabled": True}
        ]
    }
    assert bucket["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert bucket["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}


def test_the_files_bucket_refuses_anything_but_tls_1_2_or_later() -> None:
    policy = properties("FilesBucketPolicy")
    assert policy["Bucket"] == "FilesBucket"
    everything = {
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": ["FilesBucket.Arn", "${FilesBucket.Arn}/*"],
    }
    assert policy["PolicyDocument"]["Statement"] == [
        {"Sid": "TlsOnly", **everything, "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
        {"Sid": "Tls12OrLater", **everything, "Condition": {"NumericLessThan": {"s3:TlsVersion": 1.2}}},
    ]


def test_every_object_a_function_writes_expires() -> None:
    rules = {rule["Id"]: rule for rule in properties("FilesBucket")["LifecycleConfiguration"]["Rules"]}
    assert all(rule["Status"] == "Enabled" for rule in rules.values())
    expiry = {rule["Prefix"]: rule["ExpirationInDays"] for rule in rules.values() if "Prefix" in rule}
    assert expiry == {"uploads/": "FilesRetentionDays", "results/": "FilesRetentionDays", "idempotency/": 1}
    assert expiry["idempotency/"] * DAY == RETENTION_SECONDS  # a kept answer lives as long as its key
    assert rules["AbortUnfinishedMultipartUploads"]["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}
    written = {
        resource.removeprefix("${FilesBucket.Arn}/").removesuffix("*")
        for function, resource_item in RESOURCES.items()
        if resource_item["Type"] == "AWS::Serverless::Function"
        for statement in statements(function)
        if {"s3:PutObject"} & set(statement["Action"])
        for resource in ([statement["Resource"]] if isinstance(statement["Resource"], str) else statement["Resource"])
    }
    assert written == {"uploads/", "results/", "idempotency/"}
    assert written <= set(expiry)


@pytest.mark.parametrize(("queue", "function"), sorted(WORK_QUEUES.items()))
def test_each_work_queue_is_encrypted_and_dead_letters_to_an_alarmed_queue(queue: str, function: str) -> None:
    work = properties(queue)
    dead_letters = work["RedrivePolicy"]["deadLetterTargetArn"].removesuffix(".Arn")
    assert dead_letters == queue.replace("Queue", "DeadLetterQueue")
    assert work["SqsManagedSseEnabled"] is True and properties(dead_letters)["SqsManagedSseEnabled"] is True
    assert work["VisibilityTimeout"] == VISIBILITY_PER_TIMEOUT * properties(function)["Timeout"]
    assert properties(dead_letters)["MessageRetentionPeriod"] == DEAD_LETTER_RETENTION
    alarm = properties(f"{queue.removesuffix('Queue')}DeadLetterAlarm")
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": f"{dead_letters}.QueueName"}]
    assert (alarm["MetricName"], alarm["ComparisonOperator"], alarm["Threshold"]) == (
        "ApproximateNumberOfMessagesVisible",
        "GreaterThanThreshold",
        0,
    )
    assert alarm["AlarmActions"] == ["AlarmTopic"]
    events = list(properties(function)["Events"].values())
    assert [(event["Type"], event["Properties"]["Queue"]) for event in events] == [("SQS", f"{queue}.Arn")]
    assert events[0]["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


def test_an_operation_is_failed_by_its_function_before_it_is_dead_lettered() -> None:
    assert properties("OperationsQueue")["RedrivePolicy"]["maxReceiveCount"] == OPERATION_RECEIVES + 1


def test_the_operations_function_runs_one_operation_for_up_to_15_minutes_on_10_gb_of_disk() -> None:
    function = properties("OperationsFunction")
    assert (function["Timeout"], function["EphemeralStorage"], function["MemorySize"]) == (
        900,
        {"Size": "OperationsEphemeralStorage"},
        "OperationsMemory",
    )
    assert TEMPLATE["Parameters"]["OperationsEphemeralStorage"]["Default"] == 10_240
    assert function["ReservedConcurrentExecutions"] == "OperationsConcurrency"
    assert function["Events"]["Operations"]["Properties"]["BatchSize"] == 1
    settings = function["Environment"]["Variables"]
    assert settings["FILEAPI_DEADLINE_SECONDS"] < function["Timeout"]  # its own deadline ends the work first
    assert settings["FILEAPI_WORK_DIR"] == "/tmp"


def test_a_dead_letter_alarms_before_sqs_drops_it_and_a_stuck_queue_alarms() -> None:
    aged = properties("DeadLetterAgeAlarm")
    watched = {metric["MetricStat"]["Metric"]["Dimensions"][0]["Value"] for metric in aged["Metrics"][:2]}
    assert watched == {"OperationsDeadLetterQueue.QueueName", "WebhooksDeadLetterQueue.QueueName"}
    assert aged["Threshold"] < DEAD_LETTER_RETENTION
    waiting = properties("OperationsQueueAgeAlarm")
    assert (waiting["MetricName"], waiting["Threshold"]) == ("ApproximateAgeOfOldestMessage", 900)
    assert aged["AlarmActions"] == waiting["AlarmActions"] == ["AlarmTopic"]
