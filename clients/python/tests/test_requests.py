"""How calls become HTTP requests and answers become results (no server)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import httpx
import pytest
from fileapi_client import FileApi, RetryPolicy
from fileapi_client._core import error_from, prepare
from fileapi_client._generated import OPERATIONS
from fileapi_client.errors import ApiError, QuotaExceeded, RateLimited


def test_query_values_and_file_inputs(tmp_path: Path) -> None:
    path = tmp_path / "a.bin"
    path.write_bytes(b"abc")
    request = prepare(OPERATIONS["pdf_protect"], {"file": path, "userPassword": "pw", "allowPrinting": False})
    assert request.params == {"userPassword": "pw", "allowPrinting": "false"}
    assert request.content == b"abc" and request.headers == {"Content-Type": "application/octet-stream"}
    assert prepare(OPERATIONS["data_base64_encode"], {"file": io.BytesIO(b"xyz")}).content == b"xyz"
    assert prepare(OPERATIONS["data_url_encode"], {"text": "a b"}).content == b"a b"
    with pytest.raises(TypeError, match="file: expected bytes"):
        prepare(OPERATIONS["file_hash"], {"file": 12})


def test_json_bodies() -> None:
    fields = prepare(OPERATIONS["pdf_fill_form"], {"pdf": b"%PDF", "fields": {"name": "Ann"}, "flatten": None})
    assert json.loads(fields.content or b"") == {"pdf": base64.b64encode(b"%PDF").decode(), "fields": {"name": "Ann"}}
    raw = prepare(OPERATIONS["data_json_format"], {"data": '{"a":1.0}'})
    assert raw.content == b'{"a":1.0}' and raw.headers["Content-Type"] == "application/json"
    assert prepare(OPERATIONS["data_json_minify"], {"data": {"é": [1]}}).content == '{"é": [1]}'.encode()


def test_multipart_merge() -> None:
    request = prepare(OPERATIONS["pdf_merge"], {"files": [b"one", b"two"]})
    assert request.content is None and request.headers == {}
    assert [(name, part[1]) for name, part in request.files or []] == [("files", b"one"), ("files", b"two")]


def _response(status: int, body: dict[str, str], headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers or {})


def test_error_classes_and_retry_rule() -> None:
    from fileapi_client._generated import ERRORS

    limited = error_from(_response(429, {"error": "rate_limited", "message": "slow"}, {"Retry-After": "2"}), ERRORS)
    assert isinstance(limited, RateLimited) and limited.retry_after == 2
    quota = error_from(_response(429, {"error": "quota_exceeded", "message": "used"}), ERRORS)
    assert isinstance(quota, QuotaExceeded)
    policy = RetryPolicy(max_retries=2, max_wait=5)
    assert policy.delay(limited, 0) == 2 and policy.delay(limited, 1) == 2 and policy.delay(limited, 2) is None
    assert policy.delay(quota, 0) is None
    assert RetryPolicy(max_wait=1).delay(limited, 0) is None
    assert RetryPolicy(enabled=False).delay(limited, 0) is None
    odd = error_from(httpx.Response(502, text="Bad Gateway"), ERRORS)
    assert type(odd) is ApiError and odd.code == "http_502" and odd.status == 502


def test_retries_honour_retry_after_then_succeed() -> None:
    answers = [
        _response(429, {"error": "rate_limited", "message": "slow down"}, {"Retry-After": "0"}),
        httpx.Response(200, text="aGk=", headers={"Content-Type": "text/plain", "X-Quota-Remaining": "7"}),
    ]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers[len(seen) - 1]

    transport = httpx.MockTransport(handler)
    with httpx.Client(transport=transport) as http:  # a client of the caller's, without a base URL
        client = FileApi("sk_live_test", base_url="http://api.test", http_client=http)
        result = client.data_base64_encode(b"hi", urlSafe=True)
    assert result.data == "aGk=" and result.quota_remaining == 7
    assert len(seen) == 2 and all(request.content == b"hi" for request in seen)
    assert seen[0].headers["authorization"] == "Bearer sk_live_test"
    assert str(seen[0].url) == "http://api.test/v1/data/base64-encode?urlSafe=true"


def test_public_operations_send_no_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text="ok", headers={"Content-Type": "text/plain"})

    with httpx.Client(base_url="http://api.test", transport=httpx.MockTransport(handler)) as http:
        assert FileApi("sk_live_secret", http_client=http).health().data == "ok"
    assert "authorization" not in seen[0].headers
