"""Key rotation and recovery over HTTP through the composed local API, reading mail from the outbox."""

from __future__ import annotations

import io
import re
import time

from fastapi.testclient import TestClient

from fileapi.account.keys import RECOVERY_MESSAGE
from fileapi.metering.keys import hash_key
from fileapi.services import get_stores
from tests.conftest import MakeKey
from tests.helpers import auth, newest_mail_to


def test_rotate_over_http(api: TestClient, make_key: MakeKey) -> None:
    old = make_key(plan="pro")
    api.post("/v1/data/base64-encode", content=b"x", headers=auth(old))
    response = api.post("/v1/keys/rotate", headers=auth(old))
    assert response.status_code == 200
    new = response.json()["api_key"]
    assert set(response.json()) == {"message", "api_key"}
    assert api.get("/v1/usage", headers=auth(old)).status_code == 401
    usage = api.get("/v1/usage", headers=auth(new)).json()
    assert usage["used_this_month"] == 1  # usage carries over and rotation is not counted


def test_recover_over_http(api: TestClient, make_key: MakeKey) -> None:
    old = make_key(plan="pro")
    account = get_stores().accounts.get_account_by_key(hash_key(old))
    assert account is not None
    address = account.email
    started = time.monotonic()
    known = api.post("/v1/keys/recover", json={"email": address})
    known_time = time.monotonic() - started
    started = time.monotonic()
    unknown = api.post("/v1/keys/recover", json={"email": "nobody-here@example.com"})
    unknown_time = time.monotonic() - started
    assert known.json() == unknown.json() == {"message": RECOVERY_MESSAGE}
    assert known.status_code == unknown.status_code == 200
    assert known_time >= 0.6 and unknown_time >= 0.6  # both padded to the same minimum
    code = re.search(r"\b(\d{8})\b", newest_mail_to(address)).group(1)  # type: ignore[union-attr]
    confirmed = api.post("/v1/keys/recover/confirm", json={"email": address, "code": code})
    assert confirmed.status_code == 200
    new = confirmed.json()["api_key"]
    assert api.get("/v1/usage", headers=auth(old)).status_code == 401
    assert api.get("/v1/usage", headers=auth(new)).status_code == 200
    again = api.post("/v1/keys/recover/confirm", json={"email": address, "code": code})
    assert (again.status_code, again.json()["error"]) == (400, "invalid_input")


def test_recover_validation(api: TestClient) -> None:
    assert api.post("/v1/keys/recover", json={"email": "not an address"}).status_code == 400
    assert api.post("/v1/keys/recover", json={}).status_code == 400
    short = api.post("/v1/keys/recover/confirm", json={"email": "a@example.com", "code": "123"})
    assert (short.status_code, short.json()["message"]) == (400, "code must be the 8 digits (0-9) from the e-mail")


def test_keys_and_codes_never_appear_in_logs(api: TestClient, make_key: MakeKey, log_output: io.StringIO) -> None:
    old = make_key(plan="pro")
    new = api.post("/v1/keys/rotate", headers=auth(old)).json()["api_key"]
    account = get_stores().accounts.get_account_by_key(hash_key(new))
    assert account is not None
    api.post("/v1/keys/recover", json={"email": account.email})
    code = re.search(r"\b(\d{8})\b", newest_mail_to(account.email)).group(1)  # type: ignore[union-attr]
    recovered = api.post("/v1/keys/recover/confirm", json={"email": account.email, "code": code}).json()["api_key"]
    logged = log_output.getvalue()
    for secret in (old, new, recovered, code):
        assert secret not in logged
    assert old[:12] in logged  # the prefix, which is all a log may show
