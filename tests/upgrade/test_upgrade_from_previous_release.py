"""Upgrading from an earlier release locks no one out: each release's table (items and keys made by its own code,
see make_previous_release.py) is loaded into the local DynamoDB endpoint, this version is deployed over it (with
and without `fileapi tables migrate`), and every key it issued is tried through the composed API. After the
migration no admission item holds an e-mail address, a payment customer or an override: they are in the
account's contact item, where recovery and billing find them."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.local import dynamo
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.items import ADMISSION_READ, CONTACT_FIELDS
from fileapi.metering.dynamo.migrate import migrate_table
from fileapi.metering.headers import DEPRECATED_KEY_HEADERS
from fileapi.metering.keys import hash_key, is_legacy_key, is_well_formed
from fileapi.metering.months import month_period, utc
from fileapi.metering.plans import contract_plan
from fileapi.services import stores_installed
from fileapi.storage.table import DynamoTable
from tests.helpers import auth, newest_mail_to

FIRST_LAYOUT = "first layout"
ADMISSION_LAYOUT = "admission layout"
RELEASES: dict[str, dict[str, Any]] = {
    name: json.loads(Path(__file__).with_name(file).read_text())
    for name, file in ((FIRST_LAYOUT, "previous_release.json"), (ADMISSION_LAYOUT, "admission_release.json"))
}


def live(release: str) -> list[dict[str, Any]]:
    return [entry for entry in RELEASES[release]["keys"] if not entry.get("rotated_away")]


def active(release: str) -> list[dict[str, Any]]:
    return [entry for entry in live(release) if entry["status"] in ("active", "trialing")]


LIVE_KEYS = [(release, entry) for release in RELEASES for entry in live(release)]


def fixture_month(release: str) -> str:
    fixture = RELEASES[release]
    if "period" in fixture:
        return str(fixture["period"])
    (month,) = {item["sk"]["S"].removeprefix("USAGE#") for item in fixture["items"] if item["sk"]["S"][:6] == "USAGE#"}
    return str(month)


def load(release: str, endpoint: str) -> DynamoTable:
    """A fresh table holding the release's items."""
    table = dynamo.local_table(f"fileapi-upgrade-{uuid.uuid4().hex[:8]}", endpoint)
    for item in RELEASES[release]["items"]:
        table.client.put_item(TableName=table.table_name, Item=item)
    return table


@pytest.fixture(params=["migrated", "not migrated"])
def upgraded(request: pytest.FixtureRequest, release: str, dynamodb_endpoint: str, api: TestClient) -> Any:
    """The release's table, with this version deployed over it (migrated or not yet)."""
    table = load(release, dynamodb_endpoint)
    if request.param == "migrated":
        report = migrate_table(table)
        accounts = len(live(release)) if release == FIRST_LAYOUT else 0
        assert (report.accounts, report.contacts, report.keys) == (accounts, len(live(release)), accounts)
    with stores_installed(dynamo_stores(table)):
        yield api


def test_the_fixtures_hold_what_each_release_wrote() -> None:
    first, admission = RELEASES[FIRST_LAYOUT], RELEASES[ADMISSION_LAYOUT]
    assert (first["release"], admission["release"]) == ("9d5649c", "cc1f45f")
    assert all(is_legacy_key(entry["key"]) and not is_well_formed(entry["key"]) for entry in first["keys"])
    assert all(is_well_formed(entry["key"]) for entry in admission["keys"])
    profiles = [item for item in admission["items"] if item["sk"]["S"] == "PROFILE"]
    assert len(profiles) == len(live(ADMISSION_LAYOUT)) and all("email" in item for item in profiles)
    assert {item["sk"]["S"] for item in admission["items"]} >= {"SHARD", "DELIVERY", "CUSTOMER"}


@pytest.mark.parametrize(("release", "entry"), LIVE_KEYS, ids=[f"{r}-{e['plan']}-{e['status']}" for r, e in LIVE_KEYS])
def test_every_key_of_an_earlier_release_still_works(upgraded: TestClient, release: str, entry: dict[str, Any]) -> None:
    headers = auth(entry["key"])
    if entry["status"] not in ("active", "trialing"):
        refused = upgraded.get("/v1/usage", headers=headers)
        assert (refused.status_code, refused.json()["error"]) == (403, "subscription_inactive")
        return
    converted = upgraded.post("/v1/data/base64-encode", content=b"hi", headers=headers)
    assert (converted.status_code, converted.text) == (200, "aGk=")
    deprecated = DEPRECATED_KEY_HEADERS if is_legacy_key(entry["key"]) else {}
    assert {name: converted.headers.get(name) for name in DEPRECATED_KEY_HEADERS if name in converted.headers} == (
        deprecated
    )
    usage = upgraded.get("/v1/usage", headers=headers)
    counted_before = entry["used"] if fixture_month(release) == month_period(utc(time.time_ns() // 1000)) else 0
    quota = entry["quota"] if entry["quota"] is not None else contract_plan(entry["plan"]).quota_monthly
    body = usage.json()
    assert (body["plan"], body["status"], body["quota_monthly"]) == (entry["plan"], entry["status"], quota)
    assert body["used_this_month"] == counted_before + 1


@pytest.mark.parametrize("release", list(RELEASES))
def test_a_key_rotated_away_before_the_upgrade_stays_refused(upgraded: TestClient, release: str) -> None:
    (gone,) = [entry for entry in RELEASES[release]["keys"] if entry.get("rotated_away")]
    assert upgraded.get("/v1/usage", headers=auth(gone["key"])).status_code == 401


@pytest.mark.parametrize("release", list(RELEASES))
def test_rotation_replaces_a_key_of_an_earlier_release(upgraded: TestClient, release: str) -> None:
    old = next(entry["key"] for entry in live(release) if entry["plan"] == "growth")
    rotated = upgraded.post("/v1/keys/rotate", headers=auth(old))
    assert rotated.status_code == 200
    new = rotated.json()["api_key"]
    assert is_well_formed(new)
    assert upgraded.get("/v1/usage", headers=auth(old)).status_code == 401
    fresh = upgraded.get("/v1/usage", headers=auth(new))
    assert fresh.status_code == 200 and "Deprecation" not in fresh.headers


@pytest.mark.xdist_group("mail-to-fixture-addresses")  # one worker: the outbox is shared, the addresses fixed
@pytest.mark.parametrize("release", list(RELEASES))
def test_recovery_by_e_mail_finds_the_account_of_an_earlier_release(upgraded: TestClient, release: str) -> None:
    entry = next(entry for entry in live(release) if entry["plan"] == "scale")
    assert upgraded.post("/v1/keys/recover", json={"email": entry["email"]}).status_code == 200
    code = re.search(r"\b(\d{8})\b", newest_mail_to(entry["email"])).group(1)  # type: ignore[union-attr]
    confirmed = upgraded.post("/v1/keys/recover/confirm", json={"email": entry["email"], "code": code})
    assert confirmed.status_code == 200
    assert upgraded.get("/v1/usage", headers=auth(entry["key"])).status_code == 401
    assert upgraded.get("/v1/usage", headers=auth(confirmed.json()["api_key"])).status_code == 200


@pytest.mark.parametrize("release", list(RELEASES))
def test_after_the_migration_no_admission_item_holds_a_contact_field(release: str, dynamodb_endpoint: str) -> None:
    # GIVEN the release's table, migrated
    table = load(release, dynamodb_endpoint)
    migrate_table(table)
    items = table.scan(limit=10_000)
    # THEN every PROFILE and SHARD item holds admission attributes only: no e-mail, customer or override
    admission_items = [item for item in items if item["sk"]["S"] in ("PROFILE", "SHARD")]
    assert admission_items and all(set(item) <= set(ADMISSION_READ) for item in admission_items)
    # AND each account's contact item holds its address and customer, which the account store reads
    accounts = dynamo_stores(table).accounts
    for entry in live(release):
        account = accounts.get_account_by_key(hash_key(entry["key"]))
        assert account is not None and account.email == entry["email"]
        contact = table.get(f"CONTACT#{account.account_id}", "CONTACT")
        assert contact is not None and contact["email"]["S"] == entry["email"]
        assert set(contact) <= {"pk", "sk", *CONTACT_FIELDS}
        if account.customer_id:
            assert accounts.get_account_by_customer(account.customer_id) == account
    # AND a second run finds nothing more to do
    again = migrate_table(table)
    assert (again.accounts, again.contacts, again.keys, again.current) == (0, 0, 0, len(live(release)))


@pytest.mark.parametrize("release", list(RELEASES))
def test_the_migration_runs_while_keys_are_used(release: str, dynamodb_endpoint: str, api: TestClient) -> None:
    # GIVEN the release's table, deployed over, and every active key sending requests from a thread of its own
    table = load(release, dynamodb_endpoint)
    answers: Counter[int] = Counter()
    started = threading.Event()
    requests = 3  # within the smallest burst (starter: 5), with the usage request after them

    def use(key: str) -> None:
        started.wait()
        for _ in range(requests):
            answers[api.post("/v1/data/base64-encode", content=b"hi", headers=auth(key)).status_code] += 1

    with stores_installed(dynamo_stores(table)):
        threads = [threading.Thread(target=use, args=(entry["key"],)) for entry in active(release)]
        for thread in threads:
            thread.start()
        # WHEN the table is migrated meanwhile
        started.set()
        report = migrate_table(table)
        for thread in threads:
            thread.join()
        # THEN every request was admitted and counted, the migration moved every account
        assert answers == {200: requests * len(threads)}
        assert report.contacts == len(live(release))
        for entry in active(release):
            usage = api.get("/v1/usage", headers=auth(entry["key"]))
            before = entry["used"] if fixture_month(release) == month_period(utc(time.time_ns() // 1000)) else 0
            assert (usage.status_code, usage.json()["used_this_month"]) == (200, before + requests)
