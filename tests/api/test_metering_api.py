"""Authentication, refusal order, counting and headers through the composed local API."""

from __future__ import annotations

import socket
import time
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from fileapi.metering.admin import change_account
from fileapi.metering.keys import hash_key
from fileapi.metering.months import seconds_to_next_month
from fileapi.metering.storage import AccountStore
from tests.conftest import MakeKey
from tests.helpers import auth, replace_converter

ENCODE = "/v1/data/base64-encode"


def usage(api: TestClient, key: str) -> dict[str, object]:
    response = api.get("/v1/usage", headers=auth(key))
    assert response.status_code == 200
    body: dict[str, object] = response.json()
    return body


def test_health_needs_no_key(api: TestClient) -> None:
    response = api.get("/health")
    assert (response.status_code, response.text) == (200, "ok")
    assert response.headers["content-type"].startswith("text/plain")


def test_missing_key_is_401(api: TestClient) -> None:
    response = api.post(ENCODE, content=b"x")
    assert response.status_code == 401
    assert response.json() == {
        "error": "unauthorized",
        "message": "missing API key: send 'Authorization: Bearer sk_live_...'",
        "docs_url": "/docs/errors#unauthorized",
    }


def test_malformed_and_unknown_keys_are_401(api: TestClient) -> None:
    # A header's bytes beyond ASCII arrive as Latin-1 characters ("é" in UTF-8 as "Ã©"): no key holds one.
    headers = ("Basic abc", "Bearer nope", "Bearer sk_live_" + "z" * 43, "Bearer sk_live_é".encode().decode("latin-1"))
    for header in headers:
        response = api.post(ENCODE, content=b"x", headers={b"Authorization": header.encode("latin-1")})
        assert response.status_code == 401
        assert response.json()["error"] == "unauthorized"


def test_401_comes_before_validation(api: TestClient) -> None:
    response = api.post("/v1/data/json-format", params={"indent": "99"}, content=b"{")
    assert response.status_code == 401


def test_inactive_subscription_is_403(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(status="canceled")
    response = api.post(ENCODE, content=b"x", headers=auth(key))
    assert response.status_code == 403
    assert response.json()["error"] == "subscription_inactive"
    assert api.get("/v1/usage", headers=auth(key)).status_code == 403


def test_success_carries_metering_headers(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="pro")
    response = api.post(ENCODE, content=b"x", headers=auth(key))
    assert response.status_code == 200
    assert response.headers["X-Quota-Remaining"] == "9999"
    assert response.headers["RateLimit-Limit"] == "15"
    assert response.headers["RateLimit-Remaining"] == "14"
    assert response.headers["RateLimit-Policy"] == '"default";q=15;w=3'
    assert response.headers["RateLimit"].startswith('"default";r=14;t=')
    assert response.headers["X-Request-Id"]


def test_failed_requests_do_not_count(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="pro")
    assert api.post("/v1/data/json-format", content=b"{", headers=auth(key)).status_code == 400
    assert api.post("/v1/data/json-format", params={"indent": "0"}, content=b"[]", headers=auth(key)).status_code == 400
    ok = api.post("/v1/data/json-format", content=b"[]", headers=auth(key))
    assert ok.headers["X-Quota-Remaining"] == "9999"
    assert usage(api, key)["used_this_month"] == 1


def test_usage_shape_and_not_counted(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="starter", quota=7)
    first = usage(api, key)
    assert set(first) == {"plan", "quota_monthly", "used_this_month", "remaining", "resets_at", "status", "daily"}
    assert (first["plan"], first["quota_monthly"], first["used_this_month"], first["remaining"]) == ("starter", 7, 0, 7)
    assert first["status"] == "active"
    assert isinstance(first["resets_at"], str)
    assert first["resets_at"].endswith("-01T00:00:00.000Z")
    assert usage(api, key)["used_this_month"] == 0


def test_usage_lists_this_months_days_adding_up_to_the_count(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="pro")
    before = time.strftime("%Y-%m-%d", time.gmtime())
    for _ in range(3):
        assert api.post(ENCODE, content=b"x", headers=auth(key)).status_code == 200
    body = usage(api, key)
    days = body["daily"]
    assert isinstance(days, list) and days[-1]["date"] in (before, time.strftime("%Y-%m-%d", time.gmtime()))
    month = days[-1]["date"][:8]
    assert [day["date"] for day in days] == [f"{month}{number:02d}" for number in range(1, len(days) + 1)]
    assert (sum(day["requests"] for day in days), body["used_this_month"]) == (3, 3)


def test_quota_exceeded_returns_429_with_the_seconds_to_next_month(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="scale", quota=2)
    remaining = [api.post(ENCODE, content=b"x", headers=auth(key)).headers["X-Quota-Remaining"] for _ in range(2)]
    assert remaining == ["1", "0"]
    before = time.time_ns() // 1000
    response = api.post(ENCODE, content=b"x", headers=auth(key))
    after = time.time_ns() // 1000
    assert response.status_code == 429
    assert response.json()["error"] == "quota_exceeded"
    retry_after = int(response.headers["Retry-After"])
    assert seconds_to_next_month(after) <= retry_after <= seconds_to_next_month(before)
    assert (response.headers["X-Quota-Remaining"], response.headers["RateLimit-Limit"]) == ("0", "200")
    assert usage(api, key)["remaining"] == 0


def test_rate_limited_returns_429_with_retry_after_and_the_metering_headers(
    api: TestClient, make_key: MakeKey, store: AccountStore
) -> None:
    # GIVEN a bucket of 5 refilled one token per 10 s, emptied
    key = slow_key(make_key, store, burst=5)
    statuses = [api.post(ENCODE, content=b"x", headers=auth(key)).status_code for _ in range(5)]
    assert statuses == [200] * 5
    # WHEN one more comes THEN 429 rate_limited, with the seconds to the next token and the metering headers
    response = api.post(ENCODE, content=b"x", headers=auth(key))
    assert response.status_code == 429
    assert response.json()["error"] == "rate_limited"
    headers = response.headers
    assert headers["Retry-After"] in ("9", "10")
    assert (headers["RateLimit-Limit"], headers["RateLimit-Remaining"], headers["X-Quota-Remaining"]) == (
        "5",
        "0",
        "2495",
    )
    assert headers["RateLimit-Reset"] in ("49", "50")
    assert headers["RateLimit-Policy"] == '"default";q=5;w=50'
    assert headers["RateLimit"] == f'"default";r=0;t={headers["RateLimit-Reset"]}'


def test_a_failure_after_admission_carries_the_headers_of_its_refund(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="pro")
    assert api.post(ENCODE, content=b"x", headers=auth(key)).headers["X-Quota-Remaining"] == "9999"
    failed = api.post("/v1/data/base64-decode", content=b"abc$", headers=auth(key))
    assert failed.status_code == 400
    assert (failed.headers["X-Quota-Remaining"], failed.headers["RateLimit-Remaining"]) == ("9999", "13")
    invalid_query = api.post("/v1/data/json-format", params={"indent": "99"}, content=b"[]", headers=auth(key))
    assert (invalid_query.status_code, invalid_query.headers["X-Quota-Remaining"]) == (400, "9999")


def request_with_store_at(api: TestClient, key: str, endpoint: str) -> tuple[Response, float]:
    """One metered request while the process's stores point at `endpoint` (the deployed timeouts); its
    answer and how long it took."""
    from fileapi import services
    from fileapi.metering.dynamo.connect import dynamo_stores, open_table

    with services.stores_installed(dynamo_stores(open_table("t", region="us-east-1", endpoint_url=endpoint))):
        started = time.monotonic()
        response = api.post(ENCODE, content=b"x", headers=auth(key))
        return response, time.monotonic() - started


def test_an_unreachable_store_answers_503_within_2_s_and_runs_no_conversion(
    api: TestClient, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN the store's address is a port where nothing listens, and a converter that records its calls
    from fileapi.local.dynamo import free_port

    conversions: list[bytes] = []

    def recording_encode(data: bytes, **_: object) -> bytes:
        conversions.append(data)
        return b""

    replace_converter(monkeypatch, "/v1/data/base64-encode", recording_encode)
    # WHEN a request comes THEN 503 service_unavailable with Retry-After, well within 2 s, and no work done
    response, elapsed = request_with_store_at(api, key, f"http://127.0.0.1:{free_port()}")
    assert (response.status_code, response.json()["error"]) == (503, "service_unavailable")
    assert response.headers["Retry-After"] == "1"
    assert elapsed < 2.0 and conversions == []


def test_a_store_that_never_answers_gives_503_within_2_s(api: TestClient, key: str) -> None:
    # GIVEN a store that accepts connections and never replies
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        response, elapsed = request_with_store_at(api, key, f"http://127.0.0.1:{silent.getsockname()[1]}")
    assert (response.status_code, response.json()["error"]) == (503, "service_unavailable")
    assert elapsed < 2.0


def slow_key(make_key: MakeKey, store: AccountStore, *, burst: int) -> str:
    """A key whose bucket holds `burst` and refills one token per 10 s (no refill within a test)."""
    key = make_key(plan="starter")
    account = store.get_account_by_key(hash_key(key))
    assert account is not None
    change_account(store, replace(account, sustained_override=0.1, burst_override=burst))
    return key


def test_rate_limit_comes_before_validation(api: TestClient, make_key: MakeKey, store: AccountStore) -> None:
    key = slow_key(make_key, store, burst=5)
    for _ in range(5):
        api.get("/v1/usage", headers=auth(key))
    response = api.post("/v1/data/json-format", params={"indent": "99"}, content=b"[]", headers=auth(key))
    assert response.json()["error"] == "rate_limited"


def test_body_over_the_limit_is_413(api: TestClient, key: str) -> None:
    response = api.post(ENCODE, content=b"x" * 4_500_001, headers=auth(key))
    assert response.status_code == 413
    body = response.json()
    assert body["error"] == "too_large"
    assert "4,500,000" in body["message"]


def test_body_at_the_limit_is_accepted(api: TestClient, key: str) -> None:
    response = api.post(ENCODE, content=b"x" * 4_500_000, headers=auth(key))
    assert response.status_code == 200


def test_unknown_path_is_404_api_error(api: TestClient) -> None:
    response = api.get("/v1/nope")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_wrong_method_is_405_api_error(api: TestClient, key: str) -> None:
    response = api.get(ENCODE, headers=auth(key))
    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"
    assert response.headers["Allow"] == "POST"


def test_quota_exceeded_comes_before_validation(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="business", quota=0)
    response = api.post("/v1/data/json-format", content=b"{not json", headers=auth(key))
    assert response.status_code == 429
    assert response.json()["error"] == "quota_exceeded"
