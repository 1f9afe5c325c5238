"""The IAM policies of template.yaml, read as data: the converter functions may read a key's link and read and
write the admission attributes of account items, and nothing wider; key and e-mail changes stay with the
account and billing functions."""

from __future__ import annotations

from typing import Any

import pytest

from fileapi.local.template import load_template
from fileapi.metering.dynamo.items import ADMISSION_READ, KEY_ITEM_READ

TEMPLATE = load_template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
CONVERTERS = ("DataFunction", "ImageFunction", "PdfFunction", "CodesFunction", "RenderFunction", "TextFunction")
ACCOUNT_WRITERS = ("AccountFunction", "BillingEventsFunction")
TABLE = "MeteringTable.Arn"

EXPECTED_CONVERTER_STATEMENTS = [
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
    assert not private & set(ADMISSION_READ)
    assert not private & set(KEY_ITEM_READ)


def test_only_the_account_and_billing_functions_write_whole_items() -> None:
    for name, resource in RESOURCES.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        actions = {action for statement in statements(name) for action in statement["Action"]}
        writes = actions & {"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "dynamodb:Scan"}
        assert not writes or name in ACCOUNT_WRITERS, (name, writes)
        assert "dynamodb:*" not in actions
