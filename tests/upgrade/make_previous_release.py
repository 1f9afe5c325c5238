"""Writes the tables earlier releases left, each made by that release's own code (RELEASES):

- tests/upgrade/previous_release.json: the last commit before checksummed keys and the one-write admission
  layout (PREVIOUS_RELEASE): keys of its format (`sk_live_` + 43 URL-safe characters), counts in USAGE# items.
- tests/upgrade/admission_release.json: the last commit before the contact item (ADMISSION_RELEASE): the
  admission layout with the e-mail address, the payment customer and the overrides on the account's item.

Each release's `shared/fileapi` is taken from git into a temporary folder and run in a child interpreter over
moto's in-process DynamoDB: it creates accounts with its own `create_key`, admits and counts requests with
its own Meter, rotates one key, and prints every item of the table with the keys in clear. Run it again with

    .venv/bin/python -m tests.upgrade.make_previous_release

(the output differs run to run only in its random ids and keys, and in the month counted).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PREVIOUS_RELEASE = "9d5649c"
ADMISSION_RELEASE = "cc1f45f"
ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("previous_release.json")
ADMISSION_FIXTURE = Path(__file__).with_name("admission_release.json")

# Runs with the previous release's `fileapi` first on sys.path.
CHILD = r"""
import json, os, sys
from moto import mock_aws
import fileapi.metering.dynamodb as dynamodb
from fileapi.metering.admin import create_key
from fileapi.metering.meter import Meter
from fileapi.metering.keys import generate_key, hash_key
assert dynamodb.__file__.startswith(sys.argv[1]), dynamodb.__file__

os.environ.update(AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x", AWS_DEFAULT_REGION="us-east-1")
with mock_aws():
    client = dynamodb.create_client(region="us-east-1")
    dynamodb.create_table(client, "previous")
    store = dynamodb.DynamoStore("previous", client)
    meter = Meter(store)
    keys = []
    for plan, quota, status, customer, requests in [
        ("starter", None, "active", None, 3),
        ("pro", None, "active", "cus_previous_pro", 2),
        ("growth", None, "active", None, 0),
        ("scale", None, "trialing", "cus_previous_scale", 1),
        ("business", None, "active", None, 4),
        ("pro", 50, "active", None, 1),
        ("pro", None, "canceled", "cus_previous_gone", 0),
    ]:
        email = f"{plan}-{len(keys)}@previous.example"
        key = create_key(store, email=email, plan=plan, quota=quota, status=status, customer_id=customer)
        for n in range(requests):
            admission = meter.admit(meter.authenticate(f"Bearer {key}"), counted=True)
            meter.commit(admission, request_id=f"req-{len(keys)}-{n}")
        keys.append({"key": key, "email": email, "plan": plan, "quota": quota, "status": status, "used": requests})
    # a rotated key: the old one must stay refused after the upgrade
    rotated = keys[0]
    account = store.get_account_by_key(hash_key(rotated["key"]))
    new = generate_key()
    store.replace_key(account, hash_key(new))
    keys.append({**rotated, "key": new})
    rotated["rotated_away"] = True
    items = client.scan(TableName="previous")["Items"]
    print(json.dumps({"items": items, "keys": keys}))
"""

# Runs with the admission release's `fileapi` first on sys.path.
ADMISSION_CHILD = r"""
import json, os, sys, time
from moto import mock_aws
import fileapi.storage.table as dynamo_table
from fileapi.metering.admin import create_key, issue_key
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.keys import generate_key, hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.months import month_period, utc
assert dynamo_table.__file__.startswith(sys.argv[1]), dynamo_table.__file__

os.environ.update(AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x", AWS_DEFAULT_REGION="us-east-1")
with mock_aws():
    client = dynamo_table.create_client(region="us-east-1")
    dynamo_table.create_table(client, "previous")
    stores = dynamo_stores(dynamo_table.DynamoTable("previous", client))
    meter = Meter(stores.admission)
    keys = []
    for plan, quota, status, customer, requests in [
        ("starter", None, "active", None, 3),
        ("pro", None, "active", "cus_admission_pro", 2),
        ("growth", None, "active", None, 0),
        ("scale", None, "trialing", "cus_admission_scale", 1),
        ("business", None, "active", "cus_admission_business", 4),
        ("pro", 50, "active", None, 1),
        ("pro", None, "canceled", "cus_admission_gone", 0),
    ]:
        email = f"{plan}-{len(keys)}@admission.example"
        key = create_key(stores.accounts, email=email, plan=plan, quota=quota, status=status, customer_id=customer)
        for n in range(requests):
            meter.admit(f"Bearer {key}", counted=True, request_id=f"req-{len(keys)}-{n}")
        keys.append({"key": key, "email": email, "plan": plan, "quota": quota, "status": status, "used": requests})
    # a key issued by a checkout whose welcome e-mail was not sent yet
    email = f"checkout-{len(keys)}@admission.example"
    _, key = issue_key(stores.accounts, email=email, plan="pro", customer_id="cus_admission_checkout", deliver=True)
    keys.append({"key": key, "email": email, "plan": "pro", "quota": None, "status": "active", "used": 0})
    # a rotated key: the old one must stay refused after the upgrade
    rotated = keys[0]
    account = stores.accounts.get_account_by_key(hash_key(rotated["key"]))
    new = generate_key()
    stores.accounts.replace_key(account, hash_key(new))
    keys.append({**rotated, "key": new})
    rotated["rotated_away"] = True
    items = client.scan(TableName="previous")["Items"]
    print(json.dumps({"items": items, "keys": keys, "period": month_period(utc(time.time_ns() // 1000))}))
"""

RELEASES = {FIXTURE: (PREVIOUS_RELEASE, CHILD), ADMISSION_FIXTURE: (ADMISSION_RELEASE, ADMISSION_CHILD)}


def build(release: str, child: str) -> dict[str, object]:
    """A fixture's content, made by the code of `release` running `child`."""
    archive = subprocess.run(
        ["git", "archive", release, "shared/fileapi"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        shared = str(Path(folder) / "shared")
        result = subprocess.run(
            [sys.executable, "-c", child, shared],
            env={**os.environ, "PYTHONPATH": shared},
            capture_output=True,
            text=True,
            check=True,
        )
    made: dict[str, object] = json.loads(result.stdout)
    return {"release": release, "made_by": "tests/upgrade/make_previous_release.py", **made}


if __name__ == "__main__":
    for fixture, (release, child) in RELEASES.items():
        fixture.write_text(json.dumps(build(release, child), indent=1, sort_keys=True) + "\n")
        print(f"wrote {fixture.relative_to(ROOT)}")
