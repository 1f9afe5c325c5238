"""The bill is bounded per stage: template parameters for the throttle and each function's reserved
concurrency, set by every stage of samconfig.toml; encrypted logs; every declined checkov check explained."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest

from bench.cost import SAMCONFIG_PATH, STAGES, concurrency_parameters, stage_parameters
from fileapi.local.template import TEMPLATE_PATH, load_template

TEMPLATE = load_template()
PARAMETERS: dict[str, Any] = TEMPLATE["Parameters"]
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
FUNCTIONS = [name for name, resource in RESOURCES.items() if resource["Type"] == "AWS::Serverless::Function"]
THROTTLE = ("ApiThrottleRate", "ApiThrottleBurst")
BILL_PARAMETERS = (*THROTTLE, *(f"{name.removesuffix('Function')}Concurrency" for name in FUNCTIONS))
SKIP = re.compile(r"#\s*checkov:skip=(?P<id>[A-Z0-9_]+):(?P<reason>.*)$")


def skips_by_resource() -> dict[str, list[tuple[str, str]]]:
    """The `checkov:skip=ID:reason` comments of template.yaml, by the resource they stand in."""
    found: dict[str, list[tuple[str, str]]] = {}
    resource = ""
    for line in TEMPLATE_PATH.read_text(encoding="utf-8").splitlines():
        if heading := re.fullmatch(r"  (\w+):", line):
            resource = heading.group(1)
        if match := SKIP.search(line):
            found.setdefault(resource, []).append((match["id"], match["reason"].strip()))
    return found


@pytest.mark.parametrize("name", BILL_PARAMETERS)
def test_bill_parameters_are_positive_numbers(name: str) -> None:
    spec = PARAMETERS[name]
    assert spec["Type"] == "Number"
    assert spec["MinValue"] >= 1  # 0 reserved concurrency would switch a function off
    assert int(spec["Default"]) >= 1
    assert spec["Description"]


def test_the_throttle_comes_from_the_parameters() -> None:
    settings = RESOURCES["HttpApi"]["Properties"]["DefaultRouteSettings"]
    assert settings == {"ThrottlingRateLimit": "ApiThrottleRate", "ThrottlingBurstLimit": "ApiThrottleBurst"}


def test_every_function_reserves_concurrency_from_its_own_parameter() -> None:
    references = concurrency_parameters()
    assert set(references) == set(FUNCTIONS)
    for name, parameter in references.items():
        assert parameter == f"{name.removesuffix('Function')}Concurrency"
        assert parameter in PARAMETERS


@pytest.mark.parametrize("stage", STAGES)
def test_each_stage_sets_every_bill_parameter(stage: str) -> None:
    overrides = tomllib.loads(SAMCONFIG_PATH.read_text(encoding="utf-8"))[stage]["deploy"]["parameters"]
    given = dict(word.split("=", 1) for word in overrides["parameter_overrides"])
    assert set(given) <= set(PARAMETERS), "a samconfig override names no template parameter"
    assert given["Stage"] == stage
    for name in BILL_PARAMETERS:
        assert int(given[name]) >= PARAMETERS[name]["MinValue"], name
    assert int(given["ApiThrottleBurst"]) >= int(given["ApiThrottleRate"])
    assert stage_parameters(stage) | given == stage_parameters(stage)


def test_stages_grow_with_the_plans_sold() -> None:
    values = {stage: stage_parameters(stage) for stage in STAGES}
    for name in BILL_PARAMETERS:
        assert [int(values[stage][name]) for stage in STAGES] == sorted(int(values[stage][name]) for stage in STAGES)


def test_log_groups_keep_limited_history_encrypted_with_the_rotated_key() -> None:
    groups = [resource for resource in RESOURCES.values() if resource["Type"] == "AWS::Logs::LogGroup"]
    assert len(groups) == len(FUNCTIONS) + 1  # and the API's access log
    for group in groups:
        assert group["Properties"] == {"RetentionInDays": "LogRetentionDays", "KmsKeyId": "LogsKey.Arn"}
    key = RESOURCES["LogsKey"]["Properties"]
    assert key["EnableKeyRotation"] is True
    principals = [statement["Principal"] for statement in key["KeyPolicy"]["Statement"]]
    assert "*" not in principals and all("*" not in str(principal) for principal in principals)


def test_every_declined_check_says_why() -> None:
    skips = skips_by_resource()
    assert skips, "template.yaml declines no checkov check"
    for resource, entries in skips.items():
        assert resource in RESOURCES, f"a checkov:skip outside a resource ({resource!r})"
        for check, reason in entries:
            assert len(reason.split()) >= 8, f"{resource} {check}: the reason is too short"
    for name in FUNCTIONS:
        # Fixed, never declined: reserved concurrency (CKV_AWS_115).
        assert {check for check, _ in skips[name]} == {"CKV_AWS_116", "CKV_AWS_117", "CKV_AWS_173"}
    assert [check for check, _ in skips["MeteringTable"]] == ["CKV_AWS_119"]
