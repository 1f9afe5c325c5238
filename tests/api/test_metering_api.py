"""Authentication, refusal order, counting and headers through the composed local API."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.conftest import MakeKey
from tests.helpers import auth

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
    }


def test_malformed_and_unknown_keys_are_401(api: TestClient) -> None:
    for header in ("Basic abc", "Bearer nope", "Bearer sk_live_" + "z" * 43):
        response = api.post(ENCODE, content=b"x", headers={"Authorization": header})
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
    assert set(first) == {"plan", "quota_monthly", "used_this_month", "remaining", "resets_at", "status"}
    assert (first["plan"], first["quota_monthly"], first["used_this_month"], first["remaining"]) == ("starter", 7, 0, 7)
    assert first["status"] == "active"
    assert isinstance(first["resets_at"], str)
    assert first["resets_at"].endswith("-01T00:00:00.000Z")
    assert usage(api, key)["used_this_month"] == 0


def test_quota_exceeded_returns_429(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="business", quota=2)
    remaining = [api.post(ENCODE, content=b"x", headers=auth(key)).headers["X-Quota-Remaining"] for _ in range(2)]
    assert remaining == ["1", "0"]
    response = api.post(ENCODE, content=b"x", headers=auth(key))
    assert response.status_code == 429
    assert response.json()["error"] == "quota_exceeded"
    assert usage(api, key)["remaining"] == 0


def test_rate_limited_returns_429_with_retry_after(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="starter")
    statuses = [api.post(ENCODE, content=b"x", headers=auth(key)).status_code for _ in range(5)]
    assert statuses == [200] * 5
    response = api.post(ENCODE, content=b"x", headers=auth(key))
    assert response.status_code == 429
    assert response.json()["error"] == "rate_limited"
    assert int(response.headers["Retry-After"]) >= 1


def test_rate_limit_comes_before_validation(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="starter")
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


def test_docs_routes_of_fastapi_are_not_exposed(api: TestClient) -> None:
    for path in ("/docs", "/redoc"):
        assert api.get(path).json()["error"] == "not_found"


def test_quota_exceeded_comes_before_validation(api: TestClient, make_key: MakeKey) -> None:
    key = make_key(plan="business", quota=0)
    response = api.post("/v1/data/json-format", content=b"{not json", headers=auth(key))
    assert response.status_code == 429
    assert response.json()["error"] == "quota_exceeded"
