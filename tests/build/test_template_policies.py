"""The IAM policies of template.yaml, read as data: the converter functions may read a key's link and read and
write the admission attributes of account items, and nothing wider; key and e-mail changes stay with the
account and billing functions. What admission asks of DynamoDB (recorded from the code itself) stays within
the converters' policy, and no item within their reach holds an address, a customer or a secret."""

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
from fileapi.metering.dynamo.table import DynamoTable, create_client, create_table
from fileapi.metering.keys import generate_key, hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.storage import Stores
from tests.metering_doubles import Clock

TEMPLATE = load_template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
CONVERTERS = ("DataFunction", "ImageFunction", "PdfFunction", "CodesFunction", "RenderFunction", "TextFunction")
ACCOUNT_WRITERS = ("AccountFunction", "BillingEventsFunction")
TABLE = "MeteringTable.Arn"

EXPECTED_CONVERTER_STATEMENTS: list[dict[str, Any]] = [
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
    {
        "Sid": "AdmitOnAccountItems",
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
    },
]


def statements(function: str) -> list[dict[str, Any]]:
    policies = RESOURCES[function]["Properties"].get("Policies", [])
    return [statement for policy in policies for statement in policy["Statement"]]


def test_every_function_is_covered() -> None:
    functions = {name for name, resource in RESOURCES.items() if resource["Type"] == "AWS::Serverless::Function"}
    assert functions == {*CONVERTERS, *ACCOUNT_WRITERS, "HealthFunction"}


@pytest.mark.parametrize("function", CONVERTERS)
def test_converter_functions_hold_exactly_the_admission_policy(function: str) -> None:
    assert statements(function) == EXPECTED_CONVERTER_STATEMENTS


def test_the_admission_attributes_leave_out_what_identifies_a_customer() -> None:
    private = {"email", "customer_id", "quota_override", "sustained_override", "burst_override", "secret"}
    assert set(CONTACT_FIELDS) | {"secret"} == private
    assert not private & set(ADMISSION_READ)
    assert not private & set(KEY_ITEM_READ)


def reachable_partitions() -> list[str]:
    """The partition key patterns of the converter functions' statements."""
    return [
        pattern
        for statement in EXPECTED_CONVERTER_STATEMENTS
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
        actions = {action for statement in statements(name) for action in statement["Action"]}
        writes = actions & {"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "dynamodb:Scan"}
        assert not writes or name in ACCOUNT_WRITERS, (name, writes)
        assert "dynamodb:*" not in actions
