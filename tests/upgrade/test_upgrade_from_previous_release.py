"""Upgrading from the previous release locks no one out: its table (items and keys made by its own code, see
make_previous_release.py) is loaded into the local DynamoDB endpoint, this version is deployed over it (with
and without `fileapi tables migrate`), and every key it issued is tried through the composed API."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.local import dynamo
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.migrate import migrate_table
from fileapi.metering.headers import DEPRECATED_KEY_HEADERS
from fileapi.metering.keys import is_legacy_key, is_well_formed
from fileapi.metering.months import month_period, utc
from fileapi.metering.plans import contract_plan
from fileapi.web.services import stores_installed
from tests.helpers import auth

FIXTURE = json.loads(Path(__file__).with_name("previous_release.json").read_text())
ISSUED: list[dict[str, Any]] = FIXTURE["keys"]
LIVE = [entry for entry in ISSUED if not entry.get("rotated_away")]


def fixture_month() -> str:
    (month,) = {
        item["sk"]["S"].removeprefix("USAGE#") for item in FIXTURE["items"] if item["sk"]["S"].startswith("USAGE#")
    }
    return str(month)


@pytest.fixture(params=["migrated", "not migrated"])
def upgraded(request: pytest.FixtureRequest, dynamodb_endpoint: str, api: TestClient) -> Any:
    """The previous release's table, with this version deployed over it (migrated or not yet)."""
    table = dynamo.local_table(f"fileapi-upgrade-{uuid.uuid4().hex[:8]}", dynamodb_endpoint)
    for item in FIXTURE["items"]:
        table.client.put_item(TableName=table.table_name, Item=item)
    if request.param == "migrated":
        report = migrate_table(table)
        assert (report.accounts, report.keys) == (len(LIVE), len(LIVE))
    with stores_installed(dynamo_stores(table)):
        yield api


def test_the_fixture_holds_keys_of_the_earlier_format() -> None:
    assert FIXTURE["release"] == "9d5649c"
    assert all(is_legacy_key(entry["key"]) and not is_well_formed(entry["key"]) for entry in ISSUED)


@pytest.mark.parametrize("entry", LIVE, ids=[f"{e['plan']}-{e['status']}-{e['quota']}" for e in LIVE])
def test_every_key_of_the_previous_release_still_works(upgraded: TestClient, entry: dict[str, Any]) -> None:
    headers = auth(entry["key"])
    if entry["status"] not in ("active", "trialing"):
        refused = upgraded.get("/v1/usage", headers=headers)
        assert (refused.status_code, refused.json()["error"]) == (403, "subscription_inactive")
        return
    converted = upgraded.post("/v1/data/base64-encode", content=b"hi", headers=headers)
    assert (converted.status_code, converted.text) == (200, "aGk=")
    assert {name: converted.headers.get(name) for name in DEPRECATED_KEY_HEADERS} == DEPRECATED_KEY_HEADERS
    usage = upgraded.get("/v1/usage", headers=headers)
    assert usage.headers["Deprecation"] == DEPRECATED_KEY_HEADERS["Deprecation"]
    counted_before = entry["used"] if fixture_month() == month_period(utc(time.time_ns() // 1000)) else 0
    quota = entry["quota"] if entry["quota"] is not None else contract_plan(entry["plan"]).quota_monthly
    body = usage.json()
    assert (body["plan"], body["status"], body["quota_monthly"]) == (entry["plan"], entry["status"], quota)
    assert body["used_this_month"] == counted_before + 1


def test_a_key_rotated_away_before_the_upgrade_stays_refused(upgraded: TestClient) -> None:
    (gone,) = [entry for entry in ISSUED if entry.get("rotated_away")]
    assert upgraded.get("/v1/usage", headers=auth(gone["key"])).status_code == 401


def test_rotation_replaces_an_earlier_format_key(upgraded: TestClient) -> None:
    old = next(entry["key"] for entry in LIVE if entry["plan"] == "growth")
    rotated = upgraded.post("/v1/keys/rotate", headers=auth(old))
    assert rotated.status_code == 200
    new = rotated.json()["api_key"]
    assert is_well_formed(new)
    assert upgraded.get("/v1/usage", headers=auth(old)).status_code == 401
    fresh = upgraded.get("/v1/usage", headers=auth(new))
    assert fresh.status_code == 200 and "Deprecation" not in fresh.headers
