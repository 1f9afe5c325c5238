"""Writes tests/upgrade/previous_release.json: a table as the previous release left it, made by that release's code.

The previous release is the last commit before checksummed keys and the one-write admission layout
(PREVIOUS_RELEASE). Its `shared/fileapi` is taken from git into a temporary folder and run in a child
interpreter over moto's in-process DynamoDB: it creates accounts with its own `create_key` (keys of its
format, `sk_live_` + 43 URL-safe characters), admits and counts requests with its own Meter (USAGE#
items), rotates one key, and prints every item of the table with the keys in clear. Run it again with

    .venv/bin/python -m tests.upgrade.make_previous_release

(the output differs run to run only in its random ids and keys).
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
ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("previous_release.json")

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


def build() -> dict[str, object]:
    """The fixture's content, made by the previous release's code."""
    archive = subprocess.run(
        ["git", "archive", PREVIOUS_RELEASE, "shared/fileapi"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        shared = str(Path(folder) / "shared")
        result = subprocess.run(
            [sys.executable, "-c", CHILD, shared],
            env={**os.environ, "PYTHONPATH": shared},
            capture_output=True,
            text=True,
            check=True,
        )
    made: dict[str, object] = json.loads(result.stdout)
    return {"release": PREVIOUS_RELEASE, "made_by": "tests/upgrade/make_previous_release.py", **made}


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(build(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE.relative_to(ROOT)}")
